// Just enough of UnityEngine for the package's sample to compile in the tests
// (Unity itself is not installed here).
namespace UnityEngine
{
    public class MonoBehaviour { }
    public static class Application { public static string persistentDataPath { get { return "."; } } }
    public static class Time { public static int frameCount { get { return 0; } } }
}
