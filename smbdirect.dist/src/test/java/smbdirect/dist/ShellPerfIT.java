package smbdirect.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;


/**
 * {@code smbd:perf} typed at the appliance's prompt, on a terminal (a pseudo-terminal from
 * util-linux {@code script}) where the shell's output and the console log meet as they do for a
 * person: the perf report comes as one block, no log line inside it; the log lines of the run (its
 * connections established and closed) come after the report, before the next prompt, and are in
 * {@code data/log/smbdirect.log} too.
 */
class ShellPerfIT {

    /** A line of the console log (the appliance's Logback pattern starts with the date). */
    private static final Pattern LOG_LINE = Pattern.compile("^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{3} .*");

    @TempDir
    Path home;

    @Test
    void perfInTheShellPrintsItsReportInOneBlockAndTheRunsLogLinesAfterIt() throws Exception {
        Path output = home.resolve("terminal.log");
        Process p = RuntimeProcess.startOnTerminal(home, output);
        try (OutputStream keyboard = p.getOutputStream()) {
            await(p, output, "g! ", 1);
            keyboard.write("smbd:perf --count 3000 --size 4k --connections 2\n".getBytes(StandardCharsets.US_ASCII));
            keyboard.flush();
            await(p, output, "g! ", 2); // the report and the run's log lines are out
            keyboard.write("exit\n".getBytes(StandardCharsets.US_ASCII));
            keyboard.flush();
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the runtime did not stop:\n" + read(output));
            assertEquals(0, p.exitValue(), read(output));

            String terminal = read(output);
            int typed = terminal.indexOf("smbd:perf --count 3000");
            int next = terminal.indexOf("g! ", typed);
            assertTrue(typed > 0 && next > typed, terminal);
            List<String> lines = List.of(terminal.substring(terminal.indexOf('\n', typed) + 1, next).split("\n"));
            int first = indexOf(lines, l -> l.startsWith("perf: send 3000 messages of 4096 B"));
            int last = indexOf(lines, l -> l.startsWith("  every connection confirmed by the server (2 runs)"));
            assertTrue(first >= 0 && last > first, "the report:\n" + String.join("\n", lines));
            for (String line : lines.subList(first, last + 1)) {
                assertTrue(!LOG_LINE.matcher(line).matches(), "a log line inside perf's report: " + line + "\n"
                        + String.join("\n", lines));
            }
            List<String> before = lines.subList(0, first);
            assertTrue(before.stream().noneMatch(l -> LOG_LINE.matcher(l).matches()),
                    "log lines between the command and its report:\n" + String.join("\n", lines));
            List<String> after = lines.subList(last + 1, lines.size());
            long established = after.stream().filter(l -> LOG_LINE.matcher(l).matches() && l.contains(" established: "))
                    .count();
            assertEquals(4, established, "both ends of both connections, logged during the run, shown after the "
                    + "report:\n" + String.join("\n", lines));
            assertTrue(after.stream().allMatch(l -> l.isBlank() || LOG_LINE.matcher(l).matches()),
                    "after the report, only the run's log lines:\n" + String.join("\n", lines));
            String logFile = Files.readString(home.resolve("data/log/smbdirect.log"));
            assertEquals(4, logFile.lines().filter(l -> l.contains(" established: ")).count(), logFile);
        } finally {
            if (p.isAlive()) {
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    private static int indexOf(List<String> lines, java.util.function.Predicate<String> which) {
        for (int i = 0; i < lines.size(); i++) {
            if (which.test(lines.get(i))) {
                return i;
            }
        }
        return -1;
    }

    /** Waits until {@code text} appears {@code times} times on the terminal. */
    private static void await(Process p, Path output, String text, int times) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (read(output).split(Pattern.quote(text), -1).length - 1 < times) {
            if (!p.isAlive() || System.nanoTime() > deadline) {
                throw new AssertionError("no '" + text + "' (" + times + ") on the terminal:\n" + read(output));
            }
            TimeUnit.MILLISECONDS.sleep(100);
        }
    }

    private static String read(Path output) throws IOException {
        return RuntimeProcess.terminalText(output);
    }
}
