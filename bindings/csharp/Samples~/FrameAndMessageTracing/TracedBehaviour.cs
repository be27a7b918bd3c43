// Traces each frame's update and each message the game receives, so that
// `hashtrace analyze` links a message sent by a C++ or Python node to the
// frame that used it. Attach to any GameObject; call OnMessage from your
// networking code (any thread).
using HashTrace;
using UnityEngine;

public class TracedBehaviour : MonoBehaviour
{
    // Defined once; the labels say what the hashes cover (the paper's hash types).
    static readonly Tracepoint MessageReceived = new Tracepoint("MessageReceived", "messageid", "messageid");
    static readonly Tracepoint FrameUpdated = new Tracepoint("FrameUpdated", "messageid", "frame", deferred: true);

    readonly object _gate = new object();
    ulong _lastMessageId;
    bool _haveMessage;

    void Awake()
    {
        // HASHTRACE_LOG_DIR, HASHTRACE_NODE ... in the environment override these.
        if (!Tracing.IsRunning)
            Tracing.Start(TraceConfig.FromEnvironment(new TraceConfig { NodeName = "Unity", LogDir = Application.persistentDataPath }));
        Tracing.SetThreadName("main");
    }

    // Called by the networking code for every message received.
    public void OnMessage(ulong messageId)
    {
        MessageReceived.Begin().InOut(messageId).Record();
        lock (_gate)
        {
            _lastMessageId = messageId;
            _haveMessage = true;
        }
    }

    void Update()
    {
        ulong id;
        bool have;
        lock (_gate)
        {
            id = _lastMessageId;
            have = _haveMessage;
        }
        // The frame consumed the latest message: input its id, output the frame number.
        SampleBuilder sample = FrameUpdated.Begin();
        if (have) sample.In(id);
        sample.Out(Time.frameCount).Record();
    }

    void OnApplicationQuit() { Tracing.Stop(); }  // the log is complete; ProcessExit also stops it
}
