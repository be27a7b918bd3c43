#!/usr/bin/env bash
# Builds the C# runtime on its own, without configuring the C++ project, with
# what Debian 12 has (mono-xbuild, nuget), and packs it for NuGet:
#   bindings/dotnet/pack.sh OUT_DIR
#   -> OUT_DIR/bin/HashTrace.dll and OUT_DIR/HashTrace.<version>.nupkg
# The version is bindings/csharp/package.json's. Warnings fail the build: the
# compiler's through TreatWarningsAsErrors, xbuild's own here.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -eq 1 ] || { echo "usage: $0 OUT_DIR" >&2; exit 2; }
mkdir -p "$1"
out=$(cd "$1" && pwd)
version=$(sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$here/../csharp/package.json")
[ -n "$version" ] || { echo "pack.sh: no version in bindings/csharp/package.json" >&2; exit 1; }

log="$out/xbuild.log"
if ! xbuild /nologo /p:Configuration=Release /p:OutputPath="$out/bin/" /p:BaseIntermediateOutputPath="$out/obj/" \
    "$here/HashTrace.Mono.csproj" > "$log" 2>&1; then
  cat "$log" >&2
  echo "pack.sh: xbuild failed" >&2
  exit 1
fi
if ! grep -Eq '^[[:space:]]*0 Warning\(s\)' "$log"; then
  cat "$log" >&2
  echo "pack.sh: xbuild reported warnings" >&2
  exit 1
fi

stage="$out/pack"
rm -rf "$stage"
mkdir -p "$stage"
cp "$out/bin/HashTrace.dll" "$here/README.md" "$here/../csharp/LICENSE.md" "$stage/"
rm -f "$out/HashTrace.$version.nupkg"
nuget pack "$here/HashTrace.nuspec" -BasePath "$stage" -Version "$version" -OutputDirectory "$out" -NonInteractive
test -f "$out/HashTrace.$version.nupkg"
echo "pack.sh: $out/bin/HashTrace.dll, $out/HashTrace.$version.nupkg"
