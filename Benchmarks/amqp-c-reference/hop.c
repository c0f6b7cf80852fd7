/* The plain C reference for `iap-lab bench broker`: the same three phases over the same
 * rabbitmq-c, so that the Swift layer's cost shows as a ratio measured in one run.
 * Build and run: Benchmarks/amqp-c-reference/run.sh [messages] [size] [in-flight] [prefetch]
 */
#include <amqp.h>
#include <amqp_framing.h>
#include <amqp_tcp_socket.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int messages = 100000, size = 1024, window = 2000, prefetch = 1000;
static char queue[64];

static void die_on(amqp_rpc_reply_t r, const char *what) {
  if (r.reply_type != AMQP_RESPONSE_NORMAL) { fprintf(stderr, "%s failed\n", what); exit(1); }
}

static amqp_connection_state_t open_conn(void) {
  amqp_connection_state_t c = amqp_new_connection();
  amqp_socket_t *s = amqp_tcp_socket_new(c);
  if (amqp_socket_open(s, "127.0.0.1", 5672)) { fprintf(stderr, "connect failed\n"); exit(1); }
  die_on(amqp_login(c, "/", 0, 131072, 10, AMQP_SASL_METHOD_PLAIN, "guest", "guest"), "login");
  amqp_channel_open(c, 1);
  die_on(amqp_get_rpc_reply(c), "channel");
  return c;
}

static double now(void) {
  struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

static void *publish_all(void *arg) {
  (void)arg;
  amqp_connection_state_t c = open_conn();
  amqp_confirm_select(c, 1);
  die_on(amqp_get_rpc_reply(c), "confirm.select");
  char *body = malloc(size); memset(body, 'a', size);
  amqp_basic_properties_t p; p._flags = AMQP_BASIC_DELIVERY_MODE_FLAG; p.delivery_mode = 2;
  uint64_t sent = 0, confirmed = 0;
  amqp_bytes_t b = {(size_t)size, body};
  while (confirmed < (uint64_t)messages) {
    while (sent < (uint64_t)messages && sent - confirmed < (uint64_t)window) {
      if (amqp_basic_publish(c, 1, amqp_empty_bytes, amqp_cstring_bytes(queue), 0, 0, &p, b)) exit(1);
      sent++;
    }
    amqp_frame_t f;
    if (amqp_simple_wait_frame(c, &f) != AMQP_STATUS_OK) exit(1);
    if (f.frame_type == AMQP_FRAME_METHOD && f.payload.method.id == AMQP_BASIC_ACK_METHOD) {
      amqp_basic_ack_t *a = f.payload.method.decoded;
      confirmed = a->delivery_tag; /* acks settle in order on one quorum queue */
    }
    amqp_maybe_release_buffers(c);
  }
  amqp_connection_close(c, AMQP_REPLY_SUCCESS);
  amqp_destroy_connection(c);
  free(body);
  return NULL;
}

static void *consume_all(void *arg) {
  (void)arg;
  amqp_connection_state_t c = open_conn();
  amqp_basic_qos(c, 1, 0, prefetch, 0);
  amqp_basic_consume(c, 1, amqp_cstring_bytes(queue), amqp_empty_bytes, 0, 0, 0, amqp_empty_table);
  die_on(amqp_get_rpc_reply(c), "consume");
  for (int i = 0; i < messages; i++) {
    amqp_envelope_t e;
    amqp_maybe_release_buffers(c);
    die_on(amqp_consume_message(c, &e, NULL, 0), "consume_message");
    amqp_basic_ack(c, 1, e.delivery_tag, 0);
    amqp_destroy_envelope(&e);
  }
  amqp_connection_close(c, AMQP_REPLY_SUCCESS);
  amqp_destroy_connection(c);
  return NULL;
}

static void report(const char *phase, double seconds) {
  printf("  %-38s %d msg/s  (%.2f s)\n", phase, (int)(messages / seconds), seconds);
}

int main(int argc, char **argv) {
  if (argc > 1) messages = atoi(argv[1]);
  if (argc > 2) size = atoi(argv[2]);
  if (argc > 3) window = atoi(argv[3]);
  if (argc > 4) prefetch = atoi(argv[4]);
  snprintf(queue, sizeof queue, "c-reference.%ld", (long)time(NULL));
  amqp_connection_state_t admin = open_conn();
  amqp_table_entry_t e = {amqp_cstring_bytes("x-queue-type"), {AMQP_FIELD_KIND_UTF8, {.bytes = amqp_cstring_bytes("quorum")}}};
  amqp_table_t args = {1, &e};
  amqp_queue_declare(admin, 1, amqp_cstring_bytes(queue), 0, 1, 0, 0, args);
  die_on(amqp_get_rpc_reply(admin), "queue.declare");
  printf("C reference: %d persistent messages of %d B, quorum queue, %d publishes in flight, prefetch %d\n",
         messages, size, window, prefetch);
  double t = now(); publish_all(NULL); report("publish, confirmed", now() - t);
  t = now(); consume_all(NULL); report("consume, acked", now() - t);
  pthread_t pub, con;
  t = now();
  pthread_create(&pub, NULL, publish_all, NULL);
  pthread_create(&con, NULL, consume_all, NULL);
  pthread_join(pub, NULL); pthread_join(con, NULL);
  report("publish + consume at once (one hop)", now() - t);
  amqp_queue_delete(admin, 1, amqp_cstring_bytes(queue), 0, 0);
  amqp_connection_close(admin, AMQP_REPLY_SUCCESS);
  amqp_destroy_connection(admin);
  return 0;
}
