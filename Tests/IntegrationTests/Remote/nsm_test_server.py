#!/usr/bin/env python3
"""A minimal NSM server for jcap's tests, following the NSM API 1.1.1 document
(new-session-manager docs/src/api/index.adoc) step by step, as nsmd does it: it launches the
client with NSM_URL set, asserts its announce, replies, sends /nsm/client/open with a path
SESSION/jcap.nTEST, the session's name and the client id jcap.nTEST (nsmd's forms), and asserts
each reply. Raw UDP and hand-encoded OSC, so that nothing of jcap's own speaks for the server.

Scenarios (--scenario):
  session   announce, open, JACK client named after the client id, a take from the terminal
            (r, s s), an arming change (is_dirty), save (reply, is_clean, the file), a second
            open during a take (:switch: the take finished, the new session open under the new
            client id), a take there stopped by SIGTERM (exit 0)
  default   `jcap` alone: the default session (In 1, In 2 on system:capture_1, 2), then SIGTERM
  refuse    the announce answered with /error: jcap exits 28
  bad-open  a template whose source the server lacks: /error to open, jcap exits non-zero
Prints one line per step passed; exits 1 at the first failure, naming it.
"""
import argparse, os, pty, signal, socket, struct, subprocess, sys, threading, time, tomllib, json, fcntl, termios

CLIENT_ID = "jcap.nTEST"
OTHER_ID = "jcap.nOTHR"
# A take's statuses that finish it whole; frames lost or placement uncertain are what a busy
# server's xruns cause, and the Swift test checks every sample against them.
ACCEPTED = {"complete": 0, "placement uncertain": 9, "frames lost": 3}


def pad(data):
    return data + b"\0" * (4 - len(data) % 4)


def encode(path, *args):
    tags, body = ",", b""
    for arg in args:
        if isinstance(arg, int):
            tags, body = tags + "i", body + struct.pack(">i", arg)
        elif isinstance(arg, float):
            tags, body = tags + "f", body + struct.pack(">f", arg)
        else:
            tags, body = tags + "s", body + pad(arg.encode())
    return pad(path.encode()) + pad(tags.encode()) + body


def read_string(data, offset):
    end = data.index(b"\0", offset)
    return data[offset:end].decode(), (end // 4 + 1) * 4


def decode(data):
    path, offset = read_string(data, 0)
    tags, offset = read_string(data, offset)
    args = []
    for tag in tags[1:]:
        if tag == "i":
            args.append(struct.unpack(">i", data[offset:offset + 4])[0]); offset += 4
        elif tag == "f":
            args.append(struct.unpack(">f", data[offset:offset + 4])[0]); offset += 4
        elif tag == "s":
            value, offset = read_string(data, offset); args.append(value)
        else:
            raise AssertionError(f"unexpected OSC type {tag} in {path}")
    return path, tags[1:], args


class Failure(Exception):
    pass


def check(condition, what):
    if not condition:
        raise Failure(what)


class Server:
    def __init__(self):
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.socket.bind(("127.0.0.1", 0))
        self.url = f"osc.udp://127.0.0.1:{self.socket.getsockname()[1]}/"
        self.client = None
        self.seen = []  # every message from the client, in order

    def send(self, path, *args):
        self.socket.sendto(encode(path, *args), self.client)

    def expect(self, path, timeout=10, first=None):
        """The next message at `path` (and first argument `first`), skipping others (kept in seen)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.socket.settimeout(max(0.01, deadline - time.monotonic()))
            try:
                data, address = self.socket.recvfrom(65536)
            except socket.timeout:
                break
            message = decode(data)
            self.seen.append(message)
            if self.client is not None:
                check(address == self.client, f"{message[0]} came from {address}, not the announcing socket {self.client}")
            if message[0] == path and (first is None or message[2][:1] == [first]):
                return message, address
        raise Failure(f"no {path} {first or ''} within {timeout} s; received {self.seen}")


class Jcap:
    """jcap on a pseudo-terminal (its keys are a person's), NSM_URL set, output kept."""

    def __init__(self, argv, url, server):
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
        environment = dict(os.environ, NSM_URL=url, JACK_DEFAULT_SERVER=server)
        self.process = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=environment,
                                        start_new_session=True)
        os.close(slave)
        self.master, self.output = master, b""
        threading.Thread(target=self.drain, daemon=True).start()

    def drain(self):
        while True:
            try:
                data = os.read(self.master, 4096)
            except OSError:
                return
            if not data:
                return
            self.output += data

    def type(self, keys):
        for key in keys:
            os.write(self.master, key.encode())
            time.sleep(0.05)

    def wait(self, timeout=20):
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise Failure(f"jcap did not exit within {timeout} s")


def wait_for(what, condition, timeout=15):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    raise Failure(f"{what}: not within {timeout} s")


def log_entries(folder):
    try:
        with open(os.path.join(folder, "takes.jsonl")) as log:
            return [json.loads(line) for line in log if line.strip()]
    except FileNotFoundError:
        return []


def finished(folder, take):
    """Take `take`'s last log record once it has its end (a status other than recording)."""
    records = [entry for entry in log_entries(folder) if entry.get("take") == take]
    return records[-1] if records and records[-1].get("status") not in (None, "recording") else None


def jack_ports(server, *flags):
    # The server by JACK_DEFAULT_SERVER, not `jack_lsp -s`: jack_lsp 1.9.21's -s overruns its heap
    # with a name as long as the tests' private servers' (glibc aborts it).
    listing = subprocess.run(["jack_lsp", *flags], capture_output=True, text=True, timeout=10,
                             env=dict(os.environ, JACK_DEFAULT_SERVER=server))
    check(listing.returncode == 0 and listing.stdout, f"jack_lsp on {server} failed ({listing.returncode}): {listing.stderr}")
    return listing.stdout


def step(text):
    print("ok:", text, flush=True)


def announce(server, jcap, executable):
    (path, tags, args), address = server.expect("/nsm/server/announce")
    server.client = address
    check(tags == "sssiii", f"announce types {tags}, not sssiii")
    name, capabilities, exe, major, minor, pid = args
    check(name == "jcap", f"application name {name!r}")
    check(capabilities.startswith(":") and capabilities.endswith(":"), f"capabilities {capabilities!r} not colon-separated")
    check(set(capabilities.strip(":").split(":")) <= {"switch", "dirty", "progress", "message", "optional-gui"},
          f"unknown capability in {capabilities!r}")
    check(capabilities == ":switch:dirty:message:", f"capabilities {capabilities!r}")
    check(exe == executable, f"executable {exe!r}, not {executable!r}")
    check((major, minor) == (1, 1), f"API version {major}.{minor}")
    check(pid == jcap.process.pid, f"pid {pid}, not {jcap.process.pid}")
    step(f"announce: {args}")
    return capabilities


def open_session(server, folder, session_name="test session"):
    server.send("/reply", "/nsm/server/announce", "Acknowledged as full NSM client (started ourselves).",
                "jcap test NSM server", ":server-control:broadcast:optional-gui:")
    server.send("/nsm/client/open", folder, session_name, CLIENT_ID)


def run_session(options, server, jcap, folder):
    open_session(server, folder)
    (_, tags, args), _ = server.expect("/reply", timeout=20, first="/nsm/client/open")
    check(tags == "ss", f"open reply types {tags}")
    step(f"open replied: {args[1]!r}")
    session_file = os.path.join(folder, "session.toml")
    check(os.path.isfile(session_file), "no session.toml in the client's folder")
    with open(session_file, "rb") as file:
        written = tomllib.load(file)
    check(written["session"]["name"] == CLIENT_ID, f"session name {written['session']['name']!r}")
    check(written["session"]["folder"] == ".", f"folder {written['session']['folder']!r}")
    tracks = [(track["name"], track["source"]) for track in written["track"]]
    if options.template:
        with open(options.template, "rb") as file:
            template = tomllib.load(file)
        check(tracks == [(track["name"], track["source"]) for track in template["track"]], f"tracks {tracks}")
    else:
        check(tracks == [("In 1", 1), ("In 2", 2)], f"default tracks {tracks}")
    ports = jack_ports(options.server).split("\n")
    for name, _ in tracks:
        check(f"{CLIENT_ID}:{name}" in ports, f"no JACK port {CLIENT_ID}:{name} in {ports}")
    connections = jack_ports(options.server, "-c")
    check(f"{CLIENT_ID}:{tracks[0][0]}\n   " in connections, f"{tracks[0][0]} not connected: {connections}")
    step(f"JACK client {CLIENT_ID} with ports {[name for name, _ in tracks]}, connected")
    if options.scenario == "default":
        return tracks

    time.sleep(0.5)
    jcap.type("r")
    time.sleep(1.0)
    jcap.type("ss")
    wait_for("take 1 logged as complete", lambda: finished(folder, 1))
    entry = finished(folder, 1)
    check(entry["status"] in ACCEPTED, f"take 1: {entry}")
    for file in entry["files"]:
        check(os.path.isfile(os.path.join(folder, file["path"])), f"{file['path']} not in the client's folder")
    (_, _, args), _ = server.expect("/nsm/client/message")
    check(args[1].startswith("take 1 recorded"), f"message {args}")
    step(f"take 1 from the terminal, in the client's folder: {[file['path'] for file in entry['files']]}")

    jcap.type("1")
    server.expect("/nsm/client/is_dirty")
    step("disarming track 1 made the session dirty")

    server.send("/nsm/client/save")
    (_, tags, args), _ = server.expect("/reply", first="/nsm/client/save")
    check(tags == "ss", f"save reply types {tags}")
    server.expect("/nsm/client/is_clean")
    with open(session_file, "rb") as file:
        saved = tomllib.load(file)
    arms = [track["arm"] for track in saved["track"]]
    expected = [False] + [track.get("arm", True) for track in written["track"][1:]]
    check(arms == expected, f"saved arm states {arms}, not {expected}")
    check([(track["name"], track["source"]) for track in saved["track"]] == tracks, "saved tracks changed")
    check(saved["session"]["name"] == CLIENT_ID, "saved name")
    step(f"save replied {args[1]!r}, is_clean, session.toml arm states {arms}")

    jcap.type("r")
    wait_for("take 2 recording", lambda: any(entry.get("take") == 2 for entry in log_entries(folder)))
    time.sleep(1.0)

    # :switch: another open while take 2 records: take 2 finished, the new session open.
    other = os.path.join(os.path.dirname(folder), OTHER_ID)
    server.send("/nsm/client/open", other, "another session", OTHER_ID)
    (_, tags, args), _ = server.expect("/reply", timeout=20, first="/nsm/client/open")
    check(tags == "ss", f"switch reply types {tags}")
    entry = finished(folder, 2)
    check(entry is not None and entry["status"] in ACCEPTED, f"take 2 after the switch: {entry}")
    ports = jack_ports(options.server).split("\n")
    check(f"{OTHER_ID}:{tracks[0][0]}" in ports, f"no JACK port {OTHER_ID}:{tracks[0][0]} after the switch: {ports}")
    check(not any(port.startswith(CLIENT_ID + ":") for port in ports), f"{CLIENT_ID} still on the server: {ports}")
    with open(os.path.join(other, "session.toml"), "rb") as file:
        check(tomllib.load(file)["session"]["name"] == OTHER_ID, "the switched session's name")
    step(f"switched while take 2 recorded: take 2 {entry['status']} ({entry['frames']} frames), "
         f"{OTHER_ID} open: {args[1]!r}")

    time.sleep(0.5)
    jcap.type("r")
    wait_for("take 1 of the switched session recording", lambda: any(entry.get("take") == 1 for entry in log_entries(other)))
    time.sleep(1.0)
    return tracks


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--scenario", choices=["session", "default", "refuse", "bad-open"], required=True)
    parser.add_argument("--jcap", required=True)
    parser.add_argument("--template")
    parser.add_argument("--server", required=True)
    parser.add_argument("--root", required=True, help="the session manager's session folder")
    options = parser.parse_args()

    server = Server()
    argv = [options.jcap] + (["session", options.template] if options.template else [])
    jcap = Jcap(argv, server.url, options.server)
    folder = os.path.join(options.root, CLIENT_ID)
    try:
        announce(server, jcap, options.jcap)
        if options.scenario == "refuse":
            server.send("/error", "/nsm/server/announce", -3, "Client has been blacklisted.")
            status = jcap.wait()
            check(status == 28, f"jcap exited {status}, not 28")
            step("a refused announce: jcap exited 28")
        elif options.scenario == "bad-open":
            open_session(server, folder)
            (_, tags, args), _ = server.expect("/error", timeout=20, first="/nsm/client/open")
            check(tags == "sis" and args[1] < 0, f"open error {args}")
            status = jcap.wait()
            check(status != 0, "jcap exited 0 after failing to open")
            step(f"open refused with {args[1]} {args[2]!r}; jcap exited {status}")
        else:
            run_session(options, server, jcap, folder)
            jcap.process.send_signal(signal.SIGTERM)
            status = jcap.wait()
            entries = log_entries(folder) + log_entries(os.path.join(options.root, OTHER_ID))
            statuses = [ACCEPTED.get(entry["status"], -1) for entry in entries if entry["status"] != "recording"]
            expected = 3 if 3 in statuses else 9 if 9 in statuses else 0
            check(status == expected, f"jcap exited {status} after SIGTERM, not {expected} (the takes' statuses {statuses})")
            if options.scenario == "session":
                other = os.path.join(options.root, OTHER_ID)
                entry = finished(other, 1)
                check(entry is not None and entry["status"] in ACCEPTED, f"take 1 of {OTHER_ID} after SIGTERM: {entry}")
                check(entry["files"] and all(os.path.isfile(os.path.join(other, file["path"])) for file in entry["files"]),
                      "the take's files")
                step(f"SIGTERM finished {OTHER_ID}'s take 1 ({entry['frames']} frames, {entry['status']}) "
                     f"and jcap exited {status}")
            else:
                step("SIGTERM: jcap exited 0")
    except Failure as failure:
        print("FAIL:", failure, flush=True)
        if jcap.process.poll() is None:
            jcap.process.kill()
            jcap.process.wait()
        time.sleep(0.2)
        print("--- jcap's terminal ---\n" + jcap.output.decode(errors="replace")[-6000:], flush=True)
        sys.exit(1)
    print("PASS", flush=True)


if __name__ == "__main__":
    main()
