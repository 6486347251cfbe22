/* The smallest possible JACK recorder, as a yardstick: each period is copied into memory that
 * was allocated and touched before the take, and the file is written only after the take. What it
 * loses, the server and this machine lose, not a recorder.
 *
 *   reference-recorder CHANNELS SECONDS PORT-PREFIX OUTPUT.wav     (records PORT-PREFIX1..N)
 */
#include <jack/jack.h>
#include <sndfile.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static jack_port_t **ports;
static float **memory;
static int channels;
static size_t capacity, recorded;
static volatile int done;
/* Set once every port is connected: a cycle before that holds some channels' signal and others'
 * silence, which is no frame of the signal (connecting 1024 ports takes several cycles). The
 * callback starts on the cycle after the one that first sees it: JACK applies a connection from
 * the start of a cycle, and the cycle running when the last jack_connect returned began before. */
static int connected, armed;

static int process(jack_nframes_t frames, void *arg) {
    (void)arg;
    if (done) return 0;
    if (!armed) {
        armed = __atomic_load_n(&connected, __ATOMIC_ACQUIRE);
        return 0;
    }
    size_t count = frames;
    if (recorded + count >= capacity) { count = capacity - recorded; done = 1; }
    for (int c = 0; c < channels; c++)
        memcpy(memory[c] + recorded, jack_port_get_buffer(ports[c], frames), count * sizeof(float));
    recorded += count;
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 5) { fprintf(stderr, "usage: %s CHANNELS SECONDS PORT-PREFIX OUTPUT.wav\n", argv[0]); return 64; }
    channels = atoi(argv[1]);
    jack_client_t *client = jack_client_open("reference", JackNoStartServer, NULL);
    if (!client) { fprintf(stderr, "reference: no JACK server\n"); return 10; }
    int rate = (int)jack_get_sample_rate(client);
    capacity = (size_t)(atof(argv[2]) * rate);
    ports = calloc(channels, sizeof *ports);
    memory = calloc(channels, sizeof *memory);
    for (int c = 0; c < channels; c++) {
        char name[32];
        snprintf(name, sizeof name, "in_%d", c + 1);
        ports[c] = jack_port_register(client, name, JACK_DEFAULT_AUDIO_TYPE, JackPortIsInput, 0);
        memory[c] = malloc(capacity * sizeof(float));
        memset(memory[c], 0, capacity * sizeof(float));   /* touch every page before the take */
    }
    jack_set_process_callback(client, process, NULL);
    if (jack_activate(client)) { fprintf(stderr, "reference: cannot activate\n"); return 18; }
    for (int c = 0; c < channels; c++) {
        char source[256];
        snprintf(source, sizeof source, "%s%d", argv[3], c + 1);
        if (jack_connect(client, source, jack_port_name(ports[c]))) { fprintf(stderr, "reference: cannot connect %s\n", source); return 11; }
    }
    __atomic_store_n(&connected, 1, __ATOMIC_RELEASE);
    while (!done) usleep(10000);
    jack_deactivate(client);
    jack_client_close(client);

    SF_INFO info = { .samplerate = rate, .channels = channels, .format = SF_FORMAT_WAVEX | SF_FORMAT_FLOAT };
    SNDFILE *file = sf_open(argv[4], SFM_WRITE, &info);
    if (!file) { fprintf(stderr, "reference: %s\n", sf_strerror(NULL)); return 14; }
    size_t chunk = 4096;
    float *frames = malloc(chunk * channels * sizeof(float));
    for (size_t start = 0; start < recorded; start += chunk) {
        size_t count = recorded - start < chunk ? recorded - start : chunk;
        for (size_t f = 0; f < count; f++)
            for (int c = 0; c < channels; c++) frames[f * channels + c] = memory[c][start + f];
        sf_writef_float(file, frames, (sf_count_t)count);
    }
    sf_close(file);
    return 0;
}
