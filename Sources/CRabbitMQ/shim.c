#include "CRabbitMQ.h"

amqp_rpc_reply_t iap_amqp_login_plain(amqp_connection_state_t state, const char *vhost,
                                      int channel_max, int frame_max, int heartbeat,
                                      const char *user, const char *password) {
    return amqp_login(state, vhost, channel_max, frame_max, heartbeat,
                      AMQP_SASL_METHOD_PLAIN, user, password);
}
