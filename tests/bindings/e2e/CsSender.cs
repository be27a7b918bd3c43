// The C# node of the three-language test (the Unity side of a real system):
// sends message ids to the C++ relay, tracing each send.
//   mono CsSender.exe <relay port> <messages>
using System;
using System.Net;
using System.Net.Sockets;
using HashTrace;

static class CsSender
{
    static readonly Tracepoint Sent = new Tracepoint("MessageSent", "", "messageid");

    static int Main(string[] args)
    {
        int port = int.Parse(args[0]);
        ulong count = ulong.Parse(args[1]);
        Tracing.Start(TraceConfig.FromEnvironment(new TraceConfig { NodeName = "CsSender" }));
        Tracing.SetThreadName("sender");
        using (var client = new TcpClient())
        {
            client.NoDelay = true;
            client.Connect(IPAddress.Loopback, port);
            NetworkStream stream = client.GetStream();
            var message = new byte[8];
            for (ulong id = 0; id < count; ++id)
            {
                if (!Sent.Begin().Out(id).Record()) Console.Error.WriteLine("CsSender: not recorded: " + Tracing.LastError);
                for (int i = 0; i < 8; ++i) message[i] = (byte)(id >> (8 * i));
                stream.Write(message, 0, 8);
            }
        }
        Tracing.Stop();
        Console.Error.WriteLine("CsSender: " + Tracing.Stats.Written + " samples in " + Tracing.LogPath);
        return Tracing.Stats.Written == (long)count ? 0 : 1;
    }
}
