import CRabbitMQ

/// Method ids from amqp_framing.h, whose cast macros Swift cannot import.
enum AMQPMethod {
    static let connectionClose: amqp_method_number_t = 0x000A_0032
    static let connectionCloseOK: amqp_method_number_t = 0x000A_0033
    static let connectionBlocked: amqp_method_number_t = 0x000A_003C
    static let connectionUnblocked: amqp_method_number_t = 0x000A_003D
    static let channelFlow: amqp_method_number_t = 0x0014_0014
    static let channelFlowOK: amqp_method_number_t = 0x0014_0015
    static let channelClose: amqp_method_number_t = 0x0014_0028
    static let channelCloseOK: amqp_method_number_t = 0x0014_0029
    static let basicCancel: amqp_method_number_t = 0x003C_001E
    static let basicCancelOK: amqp_method_number_t = 0x003C_001F
    static let basicReturn: amqp_method_number_t = 0x003C_0032
    static let basicDeliver: amqp_method_number_t = 0x003C_003C
    static let basicAck: amqp_method_number_t = 0x003C_0050
    static let basicNack: amqp_method_number_t = 0x003C_0078

    static let frameMethod: UInt8 = 1
    static let frameHeader: UInt8 = 2
    static let frameBody: UInt8 = 3

    static let statusTimeout = AMQP_STATUS_TIMEOUT.rawValue
}
