import Logging

/// A logger that prints errors only: suites that start servers and gateways use it so a
/// 500-push test does not print 500 lines, and a failing test's own output stays readable.
public func quietLogger(_ label: String) -> Logger {
    var logger = Logger(label: label)
    logger.logLevel = .error
    return logger
}
