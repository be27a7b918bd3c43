// A tracepoint definition (the paper's Table 1): defined once, typically as a
// static readonly field, and recorded with Begin()...Record():
//
//   static readonly Tracepoint Received = new Tracepoint("MessageReceived", "messageid", "messageid");
//   Received.Begin().InOut(msg.Id).Record();
using System;
using System.Collections.Generic;

namespace HashTrace
{
    public sealed class Tracepoint
    {
        public readonly string Name;
        public readonly string InputType;
        public readonly string OutputType;
        public readonly HashFunction Function;
        /// <summary>Canonical bytes (up to 96, in and out together) are copied and hashed by the writer thread.</summary>
        public readonly bool Deferred;

        internal long Dropped;  // by the full-queue policy; the writer logs the increments
        // Writer-thread state.
        internal long LogSession, DropSession;
        internal uint LogIndex;
        internal long DropsLogged;

        static readonly List<Tracepoint> All = new List<Tracepoint>();

        /// <summary>Throws ArgumentException for an empty name or labels with commas or line
        /// breaks (they are CSV fields, docs/spec.md section 1).</summary>
        public Tracepoint(string name, string inputType, string outputType, bool deferred = false, HashFunction function = HashFunction.Md5)
        {
            if (string.IsNullOrEmpty(name)) throw new ArgumentException("hashtrace: a tracepoint needs a name", "name");
            Check(name, "name");
            Check(inputType ?? "", "inputType");
            Check(outputType ?? "", "outputType");
            if (function != HashFunction.Md5 && function != HashFunction.Xxh3_128) throw new ArgumentException("hashtrace: unknown hash function " + function, "function");
            Name = name;
            InputType = inputType ?? "";
            OutputType = outputType ?? "";
            Deferred = deferred;
            Function = function;
            lock (All) All.Add(this);
        }

        static void Check(string text, string what)
        {
            if (text.IndexOfAny(new[] { ',', '\r', '\n' }) >= 0)
                throw new ArgumentException("hashtrace: tracepoint " + what + " '" + text + "' contains a comma or a line break", what);
        }

        internal static Tracepoint[] Snapshot()
        {
            lock (All) return All.ToArray();
        }

        /// <summary>Takes the sample's time stamp and returns this thread's sample builder:
        /// add the input and output state, then Record(). Without a session (or with recording
        /// switched off) the builder ignores the values and Record() returns false.</summary>
        public SampleBuilder Begin() { return ThreadState.Current.Begin(this); }
    }
}
