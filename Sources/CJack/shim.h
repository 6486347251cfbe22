// The JACK API as jcap's Swift code sees it.
#ifndef JCAP_CJACK_SHIM_H
#define JCAP_CJACK_SHIM_H

#include <jack/jack.h>
#include <jack/metadata.h>
#include <jack/types.h>
#include <jack/uuid.h>
#include <stddef.h>

/// jack_client_open is variadic, which Swift cannot call: this fixed-signature wrapper passes the
/// server name as the one variadic argument when `server_name` is non-NULL (JackServerName).
static inline jack_client_t *jcap_client_open(const char *client_name, jack_options_t options,
                                              jack_status_t *status, const char *server_name) {
    if (server_name != NULL && server_name[0] != '\0') {
        return jack_client_open(client_name, (jack_options_t)(options | JackServerName), status,
                                server_name);
    }
    return jack_client_open(client_name, options, status);
}

// The well-known metadata keys, as functions: <jack/metadata.h> declares them as mutable globals
// (`extern const char *`), which Swift 6 refuses to read from nonisolated code.

/// JACK_METADATA_PRETTY_NAME: the name a user interface shows for a port or client.
static inline const char *jcap_metadata_pretty_name(void) { return JACK_METADATA_PRETTY_NAME; }

/// JACK_METADATA_ORDER: an integer ranking ports for display.
static inline const char *jcap_metadata_order(void) { return JACK_METADATA_ORDER; }

// The calls the process callback makes, redeclared with Swift's performance attribute so that
// `@_noAllocation @_noLocks` Swift code may call them. Each is documented by JACK as safe to call
// from the process thread: it reads client-side shared memory and neither allocates nor locks.
void *jack_port_get_buffer(jack_port_t *port, jack_nframes_t nframes)
    __attribute__((swift_attr("@_noLocks")));
jack_nframes_t jack_last_frame_time(const jack_client_t *client)
    __attribute__((swift_attr("@_noLocks")));
// The number of connections of a port, read from the graph state in shared memory (jack2 waits
// out a pending graph change only outside the real-time thread): asked when a port's buffer
// changes, and each cycle while two or more sources feed it, whose mix keeps the port's own buffer.
int jack_port_connected(const jack_port_t *port)
    __attribute__((swift_attr("@_noLocks")));
// A clock read (clock_gettime through the vDSO); the callback only calls it for the test hook
// that stalls a cycle.
jack_time_t jack_get_time(void)
    __attribute__((swift_attr("@_noLocks")));
// The cycle's frame and its time estimates, read from the frame timer in shared memory (jack2
// reads it through its lock-free double-buffered state): asked only while a wall-clock start
// waits for its cycle.
int jack_get_cycle_times(const jack_client_t *client, jack_nframes_t *current_frames,
                         jack_time_t *current_usecs, jack_time_t *next_usecs, float *period_usecs)
    __attribute__((swift_attr("@_noLocks")));

// The transport's state and position, read from the server's double-buffered transport state
// in shared memory (JACK documents it as real-time safe): read each cycle while jcap follows
// the transport.
jack_transport_state_t jack_transport_query(const jack_client_t *client, jack_position_t *pos)
    __attribute__((swift_attr("@_noLocks")));
// Requests to roll or stop the transport from the next cycle on (real-time safe, as documented):
// the test-signal client rolls the transport on chosen frames.
void jack_transport_start(jack_client_t *client) __attribute__((swift_attr("@_noLocks")));
void jack_transport_stop(jack_client_t *client) __attribute__((swift_attr("@_noLocks")));

#endif
