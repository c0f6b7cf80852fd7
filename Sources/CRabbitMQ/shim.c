#include "CRabbitMQ.h"

amqp_rpc_reply_t iap_amqp_login_plain(amqp_connection_state_t state, const char *vhost,
                                      int channel_max, int frame_max, int heartbeat,
                                      const char *user, const char *password) {
    // rabbitmq-c does not announce connection.blocked: without it the broker blocks a
    // publisher during a resource alarm without a word, and unconfirmed publishes look like
    // a dead channel. With it the broker says when publishing is blocked and unblocked.
    // (rabbitmq-c merges this table into its own capabilities.)
    amqp_table_entry_t capabilities[1];
    capabilities[0].key = amqp_cstring_bytes("connection.blocked");
    capabilities[0].value.kind = AMQP_FIELD_KIND_BOOLEAN;
    capabilities[0].value.value.boolean = 1;
    amqp_table_entry_t properties[1];
    properties[0].key = amqp_cstring_bytes("capabilities");
    properties[0].value.kind = AMQP_FIELD_KIND_TABLE;
    properties[0].value.value.table.num_entries = 1;
    properties[0].value.value.table.entries = capabilities;
    amqp_table_t table = {.num_entries = 1, .entries = properties};
    return amqp_login_with_properties(state, vhost, channel_max, frame_max, heartbeat, &table,
                                      AMQP_SASL_METHOD_PLAIN, user, password);
}
