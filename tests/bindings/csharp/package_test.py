"""The C# runtime as a .NET or Unity user gets it, checked without Unity or the .NET SDK:

- bindings/dotnet/pack.sh builds HashTrace.Mono.csproj on its own (xbuild, no
  CMake) and packs it (nuget); the .nupkg holds exactly the library, README and
  LICENSE, at package.json's version, and its library works in a fresh program;
- a compiler warning fails that build (the failure path);
- HashTrace.csproj (SDK-style) compiles the same sources for netstandard2.0 at
  the same version (built with `dotnet pack` where the .NET SDK is installed);
- the Unity package folder holds only what a package should, each asset with a
  .meta of a unique GUID; a WebGL player build refuses to start a session.

    python3 package_test.py SOURCE_DIR WORK_DIR
"""
import json
import os
import re
import shutil
import subprocess
import sys
import unittest
import xml.etree.ElementTree as ET
import zipfile

SOURCE = WORK = None
NUSPEC_NS = "{http://schemas.microsoft.com/packaging/2010/07/nuspec.xsd}"


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)


def package_version():
    with open(os.path.join(SOURCE, "bindings/csharp/package.json"), encoding="utf-8") as f:
        return json.load(f)["version"]


# A program as a NuGet user writes it: a session in a using block, one sample.
CONSUMER = r"""
using System;
using System.IO;
using HashTrace;
static class Consumer {
    static int Main(string[] args) {
        var tp = new Tracepoint("Consumed", "n", "n");
        string path;
        using (var s = new Session(new TraceConfig { NodeName = "Consumer", LogDir = args[0] })) {
            if (!tp.Begin().InOut(42).Record()) return 3;
            path = s.LogPath;
        }
        byte[] log = File.ReadAllBytes(path);
        Console.WriteLine("written " + Tracing.Stats.Written + " end " + log[log.Length - 1].ToString("x2"));
        return Tracing.Stats.Written == 1 && log[log.Length - 1] == 0x83 ? 0 : 4;
    }
}
"""


class NuGetPackage(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.out = os.path.join(WORK, "pack")
        shutil.rmtree(cls.out, ignore_errors=True)
        r = run([os.path.join(SOURCE, "bindings/dotnet/pack.sh"), cls.out])
        if r.returncode != 0:
            raise AssertionError("pack.sh failed:\n" + r.stdout)
        cls.nupkg = os.path.join(cls.out, "HashTrace.%s.nupkg" % package_version())

    def test_contents_are_the_library_readme_and_license(self):
        with zipfile.ZipFile(self.nupkg) as z:
            names = set(z.namelist())
        # The Open Packaging Conventions parts every .nupkg has, then ours.
        opc = {n for n in names if n in ("_rels/.rels", "[Content_Types].xml")
               or re.fullmatch(r"package/services/metadata/core-properties/[^/]+\.psmdcp", n)}
        self.assertEqual(len(opc), 3, names)
        self.assertEqual(names - opc, {"HashTrace.nuspec", "lib/net461/HashTrace.dll", "README.md", "LICENSE.md"})

    def test_metadata_and_library_match_the_build(self):
        with zipfile.ZipFile(self.nupkg) as z:
            meta = ET.fromstring(z.read("HashTrace.nuspec")).find(NUSPEC_NS + "metadata")
            dll = z.read("lib/net461/HashTrace.dll")
            license_text = z.read("LICENSE.md")
        self.assertEqual(meta.find(NUSPEC_NS + "id").text, "HashTrace")
        self.assertEqual(meta.find(NUSPEC_NS + "version").text, package_version())
        with open(os.path.join(self.out, "bin/HashTrace.dll"), "rb") as f:
            self.assertEqual(dll, f.read(), "the packed library is the one xbuild built")
        with open(os.path.join(SOURCE, "bindings/csharp/LICENSE.md"), "rb") as f:
            self.assertEqual(license_text, f.read())

    def test_packed_library_runs_in_a_new_program(self):
        app = os.path.join(WORK, "consumer")
        shutil.rmtree(app, ignore_errors=True)
        os.makedirs(app)
        with zipfile.ZipFile(self.nupkg) as z, open(os.path.join(app, "HashTrace.dll"), "wb") as f:
            f.write(z.read("lib/net461/HashTrace.dll"))
        with open(os.path.join(app, "Consumer.cs"), "w") as f:
            f.write(CONSUMER)
        r = run(["mcs", "-nologo", "-warnaserror+", "-r:HashTrace.dll", "-out:Consumer.exe", "Consumer.cs"], cwd=app)
        self.assertEqual(r.returncode, 0, r.stdout)
        r = run(["mono", "Consumer.exe", os.path.join(app, "logs")], cwd=app)
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertIn("written 1 end 83", r.stdout)
        logs = os.listdir(os.path.join(app, "logs"))
        self.assertEqual(len(logs), 1, logs)
        self.assertTrue(logs[0].startswith("Consumer-") and logs[0].endswith(".htlog"), logs)

    def test_a_compiler_warning_fails_the_build(self):
        # A copy of the two folders the project reads, plus one file that warns (CS0168).
        tree = os.path.join(WORK, "warning-tree")
        shutil.rmtree(tree, ignore_errors=True)
        shutil.copytree(os.path.join(SOURCE, "bindings/dotnet"), os.path.join(tree, "dotnet"),
                        ignore=shutil.ignore_patterns("bin", "obj"))
        shutil.copytree(os.path.join(SOURCE, "bindings/csharp"), os.path.join(tree, "csharp"))
        with open(os.path.join(tree, "csharp/Runtime/Warns.cs"), "w") as f:
            f.write("namespace HashTrace { static class Warns { static void F() { int unused; } } }\n")
        r = run([os.path.join(tree, "dotnet/pack.sh"), os.path.join(tree, "out")])
        self.assertNotEqual(r.returncode, 0, r.stdout)
        self.assertIn("CS0168", r.stdout)
        self.assertFalse(os.path.exists(os.path.join(tree, "out/HashTrace.%s.nupkg" % package_version())))


class SdkProject(unittest.TestCase):
    def setUp(self):
        self.path = os.path.join(SOURCE, "bindings/dotnet/HashTrace.csproj")
        self.project = ET.parse(self.path).getroot()

    def prop(self, name):
        return [e.text for e in self.project.iter(name)]

    def test_targets_netstandard20_at_the_package_version(self):
        self.assertEqual(self.project.get("Sdk"), "Microsoft.NET.Sdk")
        self.assertEqual(self.prop("TargetFramework"), ["netstandard2.0"])
        self.assertEqual(self.prop("Version"), [package_version()])
        self.assertEqual(self.prop("TreatWarningsAsErrors"), ["true"])

    def test_compiles_the_same_sources_as_the_mono_project(self):
        sdk = [e.get("Include") for e in self.project.iter("Compile")]
        ns = "{http://schemas.microsoft.com/developer/msbuild/2003}"
        mono = ET.parse(os.path.join(SOURCE, "bindings/dotnet/HashTrace.Mono.csproj")).getroot()
        classic = [e.get("Include").replace("\\", "/") for e in mono.iter(ns + "Compile")]
        self.assertEqual(sdk, ["../csharp/Runtime/*.cs"])
        self.assertEqual(classic, sdk)

    def test_dotnet_pack_where_the_sdk_is_installed(self):
        if shutil.which("dotnet") is None:
            self.skipTest("no .NET SDK here (Debian 12 packages none)")
        out = os.path.join(WORK, "dotnet-pack")
        r = run(["dotnet", "pack", "-c", "Release", self.path, "-o", out])
        self.assertEqual(r.returncode, 0, r.stdout)
        with zipfile.ZipFile(os.path.join(out, "HashTrace.%s.nupkg" % package_version())) as z:
            self.assertIn("lib/netstandard2.0/HashTrace.dll", z.namelist())


class UnityPackage(unittest.TestCase):
    def setUp(self):
        self.root = os.path.join(SOURCE, "bindings/csharp")

    def test_holds_only_package_files(self):
        entries = set(os.listdir(self.root))
        assets = {"package.json", "README.md", "CHANGELOG.md", "LICENSE.md", "Runtime", "Tests"}
        self.assertEqual(entries, assets | {a + ".meta" for a in assets} | {"Samples~"})

    def test_every_asset_has_a_meta_with_a_unique_guid(self):
        guids = {}
        for folder, dirs, files in os.walk(self.root):
            dirs[:] = [d for d in dirs if not d.endswith("~") and not d.startswith(".")]  # Unity skips these
            names = set(files) | set(dirs)
            for name in names:
                path = os.path.join(folder, name)
                rel = os.path.relpath(path, self.root)
                if name.endswith(".meta"):
                    self.assertIn(name[:-5], names, "a .meta without its asset: " + rel)
                    with open(path) as f:
                        m = re.search(r"^guid: ([0-9a-f]{32})$", f.read(), re.M)
                    self.assertIsNotNone(m, "no guid in " + rel)
                    self.assertNotIn(m.group(1), guids, rel + " repeats the guid of " + guids.get(m.group(1), ""))
                    guids[m.group(1)] = rel
                elif folder != self.root or name != "Samples~":
                    self.assertIn(name + ".meta", names, "no .meta for " + rel)

    def test_manifest_names_license_author_and_a_changelog_entry(self):
        with open(os.path.join(self.root, "package.json"), encoding="utf-8") as f:
            pkg = json.load(f)
        # An SPDX license expression: a listed id, or a LicenseRef- of the package's own.
        self.assertRegex(pkg["license"], r"^(LicenseRef-[A-Za-z0-9.-]+|[A-Za-z0-9.+-]+)$")
        self.assertTrue(pkg["author"]["name"])
        with open(os.path.join(self.root, "CHANGELOG.md"), encoding="utf-8") as f:
            self.assertIn("## [%s]" % pkg["version"], f.read())

    def test_tests_assembly_references_the_runtime_assembly(self):
        with open(os.path.join(self.root, "Runtime/HashTrace.asmdef")) as f:
            runtime = json.load(f)
        with open(os.path.join(self.root, "Tests/Editor/HashTrace.Tests.asmdef")) as f:
            tests = json.load(f)
        self.assertIn(runtime["name"], tests["references"])
        self.assertEqual(tests["includePlatforms"], ["Editor"])
        self.assertIn("nunit.framework.dll", tests["precompiledReferences"])

    def test_a_webgl_player_refuses_a_session(self):
        out = os.path.join(WORK, "webgl")
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(out)
        sources = sorted(os.path.join(self.root, "Runtime", n) for n in os.listdir(os.path.join(self.root, "Runtime"))
                         if n.endswith(".cs"))
        # The defines a WebGL player build has (the Editor defines UNITY_EDITOR too).
        r = run(["mcs", "-nologo", "-target:library", "-langversion:7", "-warnaserror+", "-d:UNITY_WEBGL",
                 "-out:" + os.path.join(out, "HashTrace.dll"), "-r:System.dll"] + sources)
        self.assertEqual(r.returncode, 0, r.stdout)
        with open(os.path.join(out, "Player.cs"), "w") as f:
            f.write(r"""
using HashTrace;
static class Player {
    static int Main(string[] args) {
        var tp = new Tracepoint("Frame", "n", "n");
        try { Tracing.Start(new TraceConfig { NodeName = "WebGL", LogDir = args[0] }); return 1; }
        catch (System.PlatformNotSupportedException e) { System.Console.WriteLine(e.Message); }
        if (Tracing.IsRunning || tp.Begin().InOut(1).Record()) return 2;
        return System.IO.Directory.Exists(args[0]) ? 3 : 0;
    }
}
""")
        r = run(["mcs", "-nologo", "-warnaserror+", "-r:HashTrace.dll", "-out:Player.exe", "Player.cs"], cwd=out)
        self.assertEqual(r.returncode, 0, r.stdout)
        r = run(["mono", "Player.exe", os.path.join(out, "logs")], cwd=out)
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertIn("WebGL", r.stdout)


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    SOURCE, WORK = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    os.makedirs(WORK, exist_ok=True)
    unittest.main(argv=[sys.argv[0], "-v"] + sys.argv[3:])
