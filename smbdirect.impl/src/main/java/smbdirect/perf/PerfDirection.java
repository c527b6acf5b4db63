package smbdirect.perf;

import java.util.Locale;

/** What a perf run measures. */
public enum PerfDirection {
    /** The client streams messages to the server (the server counts them). */
    SEND,
    /** The server streams messages to the client. */
    RECEIVE,
    /** The client sends, the server echoes each message back; latency is the round trip. */
    PINGPONG;

    /** Parses {@code send}, {@code receive} or {@code pingpong} (case-insensitive). */
    public static PerfDirection parse(String text) {
        for (PerfDirection d : values()) {
            if (d.name().equalsIgnoreCase(text)) {
                return d;
            }
        }
        throw new IllegalArgumentException("--direction must be send, receive or pingpong, not '" + text + "'");
    }

    /** The option value. */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
