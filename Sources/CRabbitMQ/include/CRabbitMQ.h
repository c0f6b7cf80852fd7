#ifndef IAP_CRABBITMQ_H
#define IAP_CRABBITMQ_H

#include <amqp.h>
#include <amqp_tcp_socket.h>
#include <amqp_framing.h>

/// amqp_login is variadic, which Swift cannot call; this fixes the PLAIN mechanism, and
/// announces the capability connection.blocked (resource alarms).
amqp_rpc_reply_t iap_amqp_login_plain(amqp_connection_state_t state, const char *vhost,
                                      int channel_max, int frame_max, int heartbeat,
                                      const char *user, const char *password);

#endif
