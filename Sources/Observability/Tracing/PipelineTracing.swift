import Instrumentation
import Tracing

/// Whether this process exports traces. Read once when a stage is built: with no tracer
/// bootstrapped (the default) the stages skip every span and every attribute, so that
/// tracing off costs a branch per message.
public enum PipelineTracing {
    /// True once a real tracer is bootstrapped (`TraceExport.bootstrap`, or a test's).
    public static var isEnabled: Bool { !(InstrumentationSystem.tracer is NoOpTracer) }
}
