import PipelineCore

extension AppScope {
    /// A condition on `column` (a stored account id) that holds for this app's rows only, and
    /// its arguments; nil with the single-app settings, whose rows are all the one app's.
    ///
    /// The default app owns the bare ids (no `/`); another owns those starting `<app>/`,
    /// compared by `substr` rather than `LIKE`, whose `_` would match any character of an id.
    public func sqlCondition(column: String) -> (sql: String, arguments: SQLArguments)? {
        guard let id else { return nil }
        if isDefault { return ("\(column) NOT LIKE '%/%'", []) }
        let prefix = "\(id)\(Self.separator)"
        return ("substr(\(column), 1, \(prefix.count)) = ?", [prefix])
    }

    /// The condition an app's jobs find their work by: rows whose `app` column (`column`,
    /// ``AppScope/key``) is this app's, the app whose credential proved them; always true with
    /// the single-app settings.
    package func jobCondition(appColumn column: String) -> (sql: String, arguments: SQLArguments) {
        guard id != nil else { return ("1 = 1", []) }
        return ("\(column) = ?", [key])
    }
}
