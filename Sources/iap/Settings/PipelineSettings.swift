import Broker
import PipelineCore

/// The settings every process shares, read from the environment at start.
struct PipelineSettings: Sendable {
    var amqp: AMQPConfiguration
    var queuePrefix: String
    var databasePath: String

    /// - Throws: ``SettingError`` naming the variable that is missing or malformed.
    init(environment env: EnvironmentReader = EnvironmentReader()) throws(SettingError) {
        let url = env.string("IAP_AMQP_URL", default: AMQPConfiguration.defaultURL)
        do {
            amqp = try AMQPConfiguration(url: url)
        } catch {
            throw SettingError(variable: "IAP_AMQP_URL", problem: error.description)
        }
        queuePrefix = env.string("IAP_QUEUE_PREFIX", default: "iap")
        guard queuePrefix.allSatisfy({ $0.isLetter || $0.isNumber || "._-".contains($0) }), queuePrefix.count <= 100 else {
            throw SettingError(variable: "IAP_QUEUE_PREFIX", problem: "use letters, digits, '.', '_' or '-' (at most 100)")
        }
        databasePath = env.string("IAP_DB_PATH", default: "var/iap.sqlite")
    }

    var topology: PipelineTopology { PipelineTopology(prefix: queuePrefix) }
}
