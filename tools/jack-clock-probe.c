/* What JACK's frame clock reads in each cycle, for finding out how a server numbers its frames
 * (tools/period-change runs it across two period changes). A client that records, per cycle,
 * jack_last_frame_time, the cycle's frame count, how far into the cycle the callback ran and
 * jack_get_cycle_times, then prints one line a cycle after SECONDS, marking each cycle that does
 * not start where the last one ended ("JUMP", with the frames) and each buffer-size callback.
 *
 *   jack-clock-probe SECONDS      (the server: $JACK_DEFAULT_SERVER)
 */
#include <jack/jack.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct {
    jack_nframes_t reading, frames, since, cycle_frames;
    jack_time_t now, cycle_usecs;
    int resized;
} cycle_record;

enum { capacity = 8192 };
static cycle_record records[capacity];
static volatile int count;
static jack_client_t *client;

static int process(jack_nframes_t frames, void *arg) {
    (void)arg;
    if (count >= capacity) return 0;
    cycle_record *r = &records[count];
    r->reading = jack_last_frame_time(client);
    r->frames = frames;
    r->since = jack_frames_since_cycle_start(client);
    r->now = jack_get_time();
    jack_time_t next;
    float period;
    jack_get_cycle_times(client, &r->cycle_frames, &r->cycle_usecs, &next, &period);
    r->resized = 0;
    count++;
    return 0;
}

static int resized(jack_nframes_t frames, void *arg) {
    (void)arg;
    if (count < capacity) records[count++] = (cycle_record){ .frames = frames, .now = jack_get_time(), .resized = 1 };
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: %s SECONDS\n", argv[0]); return 64; }
    client = jack_client_open("clock-probe", JackNoStartServer, NULL);
    if (!client) { fprintf(stderr, "jack-clock-probe: no JACK server\n"); return 69; }
    jack_set_process_callback(client, process, NULL);
    jack_set_buffer_size_callback(client, resized, NULL);
    if (jack_activate(client)) { fprintf(stderr, "jack-clock-probe: cannot activate\n"); return 69; }
    sleep((unsigned)atoi(argv[1]));
    jack_deactivate(client);
    int total = count;
    jack_nframes_t expected = 0;
    jack_time_t last_usecs = 0;
    for (int i = 0; i < total; i++) {
        cycle_record *r = &records[i];
        if (r->resized) { printf("period set to %u frames\n", r->frames); continue; }
        long jump = i > 0 ? (long)(int32_t)(r->reading - expected) : 0;
        printf("frame %u, %u frames, callback %u frames into the cycle, cycle began %lld us after the last%s",
               r->reading, r->frames, r->since, last_usecs ? (long long)(r->cycle_usecs - last_usecs) : 0LL, jump ? ", JUMP " : "\n");
        if (jump) printf("%+ld\n", jump);
        expected = r->reading + r->frames;
        last_usecs = r->cycle_usecs;
    }
    jack_client_close(client);
    return 0;
}
