package smbdirect.dist;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.Charset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

import org.slf4j.LoggerFactory;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.ConsoleAppender;

/**
 * The terminal the interactive shell shares with the console log: while a command typed at the
 * prompt runs, the lines of the log's console appenders (Logback's {@code ConsoleAppender}s, from
 * every thread) and the command's own standard error are held back and written after the command's
 * output, just before the next prompt, in the order they were logged and with their own timestamps. So a command's output ({@code smbd:perf}'s
 * report, a table of connections) is never interleaved with log lines; the log file
 * ({@code data/log/smbdirect.log}) gets every line at once, as always.
 *
 * <p>A command starts when the shell reads the end of a line from the keyboard and ends when the
 * shell writes its prompt (or, for a prompt that is not plain text, when it reads the keyboard
 * again). At most {@value #LIMIT} bytes are held: beyond that, what is held is written and the rest
 * of that command's log lines pass through as they come. When the shell ends (or the runtime stops)
 * what is held is written and the console appenders get their own streams back. (The console
 * appenders' streams are replaced rather than {@code System.err}, which Gogo's per-thread streams own;
 * an appender that Logback re-creates when {@code etc/logback.xml} changes during a session writes as
 * it comes.)
 *
 * <p>Thread-safe: log lines come from any thread; the keyboard and the shell's output from the
 * shell's threads. One monitor guards the held bytes and the state.
 */
final class ShellConsole implements AutoCloseable {

    /** The most bytes held back during one command. */
    static final int LIMIT = 4 << 20;

    private final OutputStream terminal;
    private final Supplier<String> prompt;
    private final Charset charset;
    /** Gives each console appender its own stream back. */
    private final List<Runnable> restore = new ArrayList<>();
    private byte[] held = new byte[8192];
    private int heldLength;
    private boolean holding;
    private boolean closed;

    /**
     * @param terminal where held bytes go when released (the process's standard error)
     * @param prompt the shell's prompt as text, or {@code null} when it is not plain text
     */
    ShellConsole(OutputStream terminal, Supplier<String> prompt) {
        this.terminal = terminal;
        this.prompt = prompt;
        this.charset = Charset.defaultCharset();
    }

    /**
     * Puts the gate in front of the console appenders of the runtime's Logback configuration until
     * {@link #close()}.
     *
     * @param prompt the shell's prompt as text ({@code null} when not known or not plain text)
     */
    static ShellConsole install(Supplier<String> prompt) {
        ShellConsole console = new ShellConsole(new FileOutputStream(FileDescriptor.err), prompt);
        if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
            Set<ConsoleAppender<ILoggingEvent>> seen = new HashSet<>();
            for (Logger logger : context.getLoggerList()) {
                for (Iterator<Appender<ILoggingEvent>> it = logger.iteratorForAppenders(); it.hasNext();) {
                    if (it.next() instanceof ConsoleAppender<ILoggingEvent> appender && seen.add(appender)) {
                        console.hold(appender);
                    }
                }
            }
        }
        return console;
    }

    /** The console appender's stream goes through the gate; {@link #close()} gives it back. */
    private void hold(ConsoleAppender<ILoggingEvent> appender) {
        OutputStream own = appender.getOutputStream();
        if (own == null) {
            return; // not started
        }
        appender.setOutputStream(gate(own)); // closing the appender's console stream does nothing
        synchronized (this) {
            restore.add(() -> {
                if (appender.isStarted()) {
                    appender.setOutputStream(own);
                }
            });
        }
    }

    /** A stream to {@code target} that holds what is written to it while a command runs. */
    OutputStream gate(OutputStream target) {
        return new Gate(target);
    }

    /** The shell's keyboard: an end of line starts a command, a read while one runs ends it. */
    InputStream keyboard(InputStream in) {
        return new InputStream() {
            @Override
            public int read() throws IOException {
                commandOver();
                int c = in.read();
                if (c == '\n' || c == '\r') {
                    commandStarts();
                }
                return c;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                commandOver();
                int n = in.read(b, off, len);
                for (int i = 0; i < n; i++) {
                    if (b[off + i] == '\n' || b[off + i] == '\r') {
                        commandStarts();
                        break;
                    }
                }
                return n;
            }

            @Override
            public int available() throws IOException {
                return in.available();
            }

            @Override
            public void close() throws IOException {
                in.close();
            }
        };
    }

    /** The shell's output: the prompt ends a command; what comes before it is the command's own. */
    OutputStream output(OutputStream out) {
        return new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                out.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                if (isPrompt(b, off, len)) {
                    commandOver();
                }
                out.write(b, off, len);
            }

            @Override
            public void flush() throws IOException {
                out.flush();
            }

            @Override
            public void close() throws IOException {
                out.close();
            }
        };
    }

    /** The shell's error stream: held back with the log while a command runs. */
    OutputStream errors(OutputStream err) {
        return gate(err);
    }

    /** Whether a command's log lines are being held back now (for tests). */
    synchronized boolean holding() {
        return holding;
    }

    private boolean isPrompt(byte[] b, int off, int len) {
        String p;
        synchronized (this) {
            if (!holding) {
                return false;
            }
        }
        p = prompt.get();
        if (p == null || p.isEmpty()) {
            return false;
        }
        return new String(b, off, len, charset).endsWith(p);
    }

    private synchronized void commandStarts() {
        if (!closed) {
            holding = true;
        }
    }

    /** The command is over: what was held is written, in order, and log lines pass through again. */
    synchronized void commandOver() {
        holding = false;
        if (heldLength > 0) {
            try {
                terminal.write(held, 0, heldLength);
                terminal.flush();
            } catch (IOException e) {
                // the terminal is gone: nothing to show the lines on (the log file has them)
            }
            heldLength = 0;
            if (held.length > 65536) {
                held = new byte[8192];
            }
        }
    }

    /** Writes what is held and stops holding; the console appenders get their own streams back. */
    @Override
    public void close() {
        List<Runnable> giveBack;
        synchronized (this) {
            closed = true;
            commandOver();
            giveBack = new ArrayList<>(restore);
            restore.clear();
        }
        giveBack.forEach(Runnable::run);
    }

    /** A stream that passes writes through, or holds them while a command runs. */
    private final class Gate extends OutputStream {
        private final OutputStream target;

        Gate(OutputStream target) {
            this.target = target;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            synchronized (ShellConsole.this) {
                if (holding && heldLength + len > LIMIT) {
                    commandOver(); // too much for one command: show what is held, then pass through
                }
                if (holding) {
                    if (heldLength + len > held.length) {
                        byte[] bigger = new byte[Math.max(held.length * 2, heldLength + len)];
                        System.arraycopy(held, 0, bigger, 0, heldLength);
                        held = bigger;
                    }
                    System.arraycopy(b, off, held, heldLength, len);
                    heldLength += len;
                    return;
                }
            }
            target.write(b, off, len);
        }

        @Override
        public void flush() throws IOException {
            target.flush();
        }
    }
}
