/// The command line, checked before it is parsed: no option or argument of `iap` takes a
/// control character (a line break or an escape in a reason would forge lines in the
/// records and logs it reaches; argv cannot carry NUL).
enum ArgumentCheck {
    /// What is wrong with `arguments` (without the program's name), naming the argument; nil
    /// when nothing is.
    static func problem(_ arguments: [String]) -> String? {
        for (index, argument) in arguments.enumerated() where hasControlCharacter(argument) {
            let named: String
            if argument.hasPrefix("-"), let equals = argument.firstIndex(of: "=") {
                named = String(argument[..<equals])
            } else if index > 0, arguments[index - 1].hasPrefix("-") {
                named = "the value of \(arguments[index - 1])"
            } else {
                named = "argument \(index + 1)"
            }
            return "\(named) holds a control character (such as a line break or an escape), "
                + "which no option takes; nothing was done"
        }
        return nil
    }

    private static func hasControlCharacter(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }
}
