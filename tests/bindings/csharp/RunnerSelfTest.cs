// A fixture whose one test fails: compiled into a second runner, it shows the
// runner reports a failed NUnit assertion (and a failure in TearDown) rather
// than passing everything (ctest: csharp_nunit_runner_reports_failures).
using NUnit.Framework;

[TestFixture]
public class RunnerSelfTest
{
    int _setUps;

    [SetUp]
    public void CountSetUp() { ++_setUps; }

    [Test]
    public void Passes() { Assert.AreEqual(1, _setUps, "SetUp ran once before the test"); }

    [Test]
    public void FailsAnAssertion() { Assert.AreEqual(2, 1 + 2, "a deliberately false assertion"); }

    [Test]
    public void Throws() { throw new System.InvalidOperationException("a deliberate exception"); }
}
