package smbdirect.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.io.TempDir;


/**
 * Leaving the appliance's shell the way a person does: the runtime started on a terminal (a
 * pseudo-terminal from util-linux {@code script}), the banner offers the shell's commands, and
 * {@code exit}, {@code exit 3} or {@code shutdown} typed at the prompt stop the runtime cleanly
 * with that status, without the noise of bundles torn down mid-task.
 */
class ShellExitIT {

    @TempDir
    Path home;

    @ParameterizedTest
    @CsvSource({"exit, 0, exit typed in the shell", "shutdown, 0, shutdown typed in the shell",
            "exit 3, 3, exit typed in the shell"})
    void typingExitOrShutdownAtThePromptStopsTheRuntimeCleanlyWithItsStatus(String typed, int status, String cause)
            throws Exception {
        Path output = home.resolve("terminal.log");
        Process p = RuntimeProcess.startOnTerminal(home, output);
        try (OutputStream keyboard = p.getOutputStream()) {
            await(p, output, "exit (or shutdown) stops the runtime");
            await(p, output, "g! ");
            keyboard.write((typed + "\n").getBytes(StandardCharsets.US_ASCII));
            keyboard.flush();
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the runtime did not stop after '" + typed + "':\n"
                    + read(output));
            String out = read(output);
            assertEquals(status, p.exitValue(), out);
            assertTrue(out.contains("smbd:connections, smbd:listeners"), "a shell, so its commands are offered:\n" + out);
            assertTrue(out.contains("smbdirect.dist.ApplianceMain - stopping the runtime (" + cause + ")"), out);
            assertTrue(out.contains("Listener default at /10.0.0.1:445 closed"), "the bundles stopped in order:\n" + out);
            assertFalse(out.contains("Cannot coerce"), out);
            assertFalse(out.contains("Interrupted"), out);
            assertFalse(out.contains(" WARN ") || out.contains(" ERROR "), out);
        } finally {
            if (p.isAlive()) {
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    private static void await(Process p, Path output, String text) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (!read(output).contains(text)) {
            if (!p.isAlive() || System.nanoTime() > deadline) {
                throw new AssertionError("no '" + text + "' on the terminal:\n" + read(output));
            }
            TimeUnit.MILLISECONDS.sleep(100);
        }
    }

    private static String read(Path output) throws IOException {
        return RuntimeProcess.terminalText(output);
    }
}
