// EditMode tests of the package, for Unity's Test Runner (NUnit). They use
// only NUnit API that NUnit 2.6 and 3.x share, and no UnityEngine type, so CI
// runs this same file under Mono (tests/bindings/csharp/NUnitRunner.cs) where
// no Unity is installed.
using System;
using System.IO;
using NUnit.Framework;

namespace HashTrace.Tests
{
    [TestFixture]
    public class HashTraceEditModeTests
    {
        string _logDir;

        [SetUp]
        public void MakeLogDir()
        {
            _logDir = Path.Combine(Path.GetTempPath(), "hashtrace-editmode-" + Guid.NewGuid().ToString("N"));
        }

        [TearDown]
        public void RemoveLogDir()
        {
            Tracing.Stop();  // a failed test must not leave its session to the next one
            if (Directory.Exists(_logDir)) Directory.Delete(_logDir, true);
        }

        TraceConfig Config(string node)
        {
            return new TraceConfig { NodeName = node, LogDir = _logDir };
        }

        static string Hex(byte[] b, int n)
        {
            var s = new System.Text.StringBuilder();
            for (int i = 0; i < n; ++i) s.Append(b[i].ToString("x2"));
            return s.ToString();
        }

        // docs/spec.md section 2: each type at its width, little-endian; strings and
        // byte arrays with a uint32 length first.
        [Test]
        public void CanonicalBytesFollowTheSpec()
        {
            var w = new CanonicalWriter().Add(1).Add((ushort)0x0203).Add(true).Add("é").Add(new byte[] { 0xff });
            Assert.AreEqual("01000000" + "0302" + "01" + "02000000c3a9" + "01000000ff", Hex(w.Buffer, w.Length));
        }

        // RFC 1321's own test suite.
        [Test]
        public void Md5MatchesRfc1321()
        {
            Assert.AreEqual("d41d8cd98f00b204e9800998ecf8427e", Md5Of(new byte[0]));
            Assert.AreEqual("900150983cd24fb0d6963f7d28e17f72", Md5Of(System.Text.Encoding.ASCII.GetBytes("abc")));
            Assert.AreEqual("57edf4a22be3c955ac49da2e2107b67a",
                Md5Of(System.Text.Encoding.ASCII.GetBytes("12345678901234567890123456789012345678901234567890123456789012345678901234567890")));
        }

        // The managed MD5 against the platform's, at every length around the block boundaries.
        [Test]
        public void Md5MatchesSystemCryptography()
        {
            using (var reference = System.Security.Cryptography.MD5.Create())
            {
                var data = new byte[200];
                for (int i = 0; i < data.Length; ++i) data[i] = (byte)(i * 131 + 7);
                for (int n = 0; n <= 150; ++n)
                {
                    var part = new byte[n];
                    Array.Copy(data, part, n);
                    Assert.AreEqual(Hex(reference.ComputeHash(part), 16), Md5Of(part), "MD5 of " + n + " bytes");
                }
            }
        }

        static string Md5Of(byte[] data)
        {
            return new CanonicalWriter().AddCanonical(data, 0, data.Length).Md5Hash().ToString();
        }

        [Test]
        public void BadDefinitionsAndConfigsThrow()
        {
            Assert.Throws<ArgumentException>(() => new Tracepoint("", "a", "b"));
            Assert.Throws<ArgumentException>(() => new Tracepoint("a,b", "a", "b"));
            Assert.Throws<ArgumentException>(() => Tracing.Start(new TraceConfig { NodeName = "" }));
            Assert.Throws<ArgumentException>(() => Tracing.Start(new TraceConfig { NodeName = "n", QueueCapacity = 0 }));
            Assert.IsFalse(Tracing.IsRunning, "no session after refused starts");
        }

        [Test]
        public void SessionWritesACompleteLog()
        {
            var tp = new Tracepoint("EditModeSample", "n", "n");
            var deferred = new Tracepoint("EditModeDeferred", "n", "text", deferred: true);
            string path;
            using (var session = new Session(Config("EditMode")))
            {
                for (int i = 0; i < 100; ++i)
                {
                    Assert.IsTrue(tp.Begin().InOut(i).Record());
                    Assert.IsTrue(deferred.Begin().In(i).Out("sample " + i).Record());
                }
                path = session.LogPath;
                Assert.IsTrue(Tracing.IsRunning);
            }
            Assert.IsFalse(Tracing.IsRunning, "Dispose stops the session");
            Assert.AreEqual(200L, Tracing.Stats.Written);
            Assert.AreEqual(0L, Tracing.Stats.Dropped);
            byte[] log = File.ReadAllBytes(path);
            Assert.AreEqual((byte)0x83, log[log.Length - 1], "the end marker closes the log");
        }

        [Test]
        public void MisuseIsReportedNotThrown()
        {
            var tp = new Tracepoint("EditModeMisuse", "id", "id");
            Assert.IsFalse(tp.Begin().InOut(1).Record(), "no record before a session");
            Tracing.Start(Config("EditModeMisuse"));
            Assert.Throws<InvalidOperationException>(() => Tracing.Start(Config("EditModeMisuse")));
            long rejected = Tracing.Stats.Rejected;
            Assert.IsFalse(tp.Begin().InOut("lone \ud800 surrogate").Record());
            Assert.IsFalse(tp.Begin().In((string)null).Record());
            Assert.AreEqual(rejected + 2, Tracing.Stats.Rejected);
            StringAssert.Contains("EditModeMisuse", Tracing.LastError);
            Tracing.Enabled = false;
            Assert.IsFalse(tp.Begin().InOut(3).Record(), "switched off");
            Tracing.Enabled = true;
            Assert.IsTrue(tp.Begin().InOut(4).Record());
            Tracing.Stop();
            Assert.AreEqual(1L, Tracing.Stats.Written);
        }

        [Test]
        public void AFullQueueDropsAndCounts()
        {
            var tp = new Tracepoint("EditModeBurst", "n", "n");
            var c = Config("EditModeDrops");
            c.QueueCapacity = 1;
            Tracing.Start(c);
            int queued = 0;
            for (int i = 0; i < 20000; ++i) if (tp.Begin().InOut(i).Record()) ++queued;
            Tracing.Stop();
            Assert.AreEqual(20000L, Tracing.Stats.Written + Tracing.Stats.Dropped);
            Assert.AreEqual((long)queued, Tracing.Stats.Written, "Record() says which samples were queued");
            Assert.Greater(Tracing.Stats.Dropped, 0L, "a 1-sample queue drops a tight loop's samples");
        }
    }
}
