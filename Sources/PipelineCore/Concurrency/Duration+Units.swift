extension Duration {
    /// Whole milliseconds, for poll timeouts, TTL arguments and logs.
    public var milliseconds: Int64 {
        components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000
    }

    /// Whole microseconds, for `timeval`.
    public var microseconds: Int64 {
        components.seconds * 1_000_000 + components.attoseconds / 1_000_000_000_000
    }

    /// Seconds as a floating-point number, for rates and `Date` arithmetic.
    public var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
