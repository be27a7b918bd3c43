// Runs NUnit fixtures where Unity's Test Runner is not: the package's EditMode
// tests (bindings/csharp/Tests/Editor) under Mono, against Debian's NUnit 2.6
// framework. Fixtures are compiled into this executable; each [Test] method
// runs between its fixture's [SetUp] and [TearDown], and an exception (an
// NUnit assertion or any other) fails it.
//   mono NUnitRunner.exe
// prints PASS/FAIL per test, then "nunit tests: N passed, M failed"; the exit
// code is the number of failures.
using System;
using System.Linq;
using System.Reflection;
using NUnit.Framework;

static class NUnitRunner
{
    static int Main()
    {
        int passed = 0, failed = 0;
        var fixtures = Assembly.GetExecutingAssembly().GetTypes()
            .Where(t => t.GetCustomAttributes(typeof(TestFixtureAttribute), false).Length > 0)
            .OrderBy(t => t.FullName);
        foreach (Type fixture in fixtures)
        {
            MethodInfo[] methods = fixture.GetMethods(BindingFlags.Public | BindingFlags.Instance);
            MethodInfo[] setUps = methods.Where(m => m.IsDefined(typeof(SetUpAttribute), true)).ToArray();
            MethodInfo[] tearDowns = methods.Where(m => m.IsDefined(typeof(TearDownAttribute), true)).ToArray();
            foreach (MethodInfo test in methods.Where(m => m.IsDefined(typeof(TestAttribute), true)).OrderBy(m => m.Name))
            {
                string name = fixture.Name + "." + test.Name;
                object instance = Activator.CreateInstance(fixture);
                Exception error = null;
                try
                {
                    foreach (MethodInfo m in setUps) m.Invoke(instance, null);
                    test.Invoke(instance, null);
                }
                catch (TargetInvocationException e) { error = e.InnerException; }
                // TearDown runs after a failure too, and its own failure fails the test.
                foreach (MethodInfo m in tearDowns)
                {
                    try { m.Invoke(instance, null); }
                    catch (TargetInvocationException e) { if (error == null) error = e.InnerException; }
                }
                if (error == null)
                {
                    Console.WriteLine("PASS " + name);
                    ++passed;
                }
                else
                {
                    Console.WriteLine("FAIL " + name + ": " + error.GetType().Name + ": " + error.Message + "\n" + error.StackTrace);
                    ++failed;
                }
            }
        }
        Console.WriteLine("nunit tests: " + passed + " passed, " + failed + " failed");
        return failed;
    }
}
