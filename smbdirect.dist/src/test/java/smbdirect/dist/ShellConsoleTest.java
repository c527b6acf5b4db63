package smbdirect.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

/**
 * The shell's terminal: one byte stream stands for the terminal that standard output and standard
 * error share, as they do on a console, so the order of what a person sees is the order here.
 */
class ShellConsoleTest {

    private final ByteArrayOutputStream screen = new ByteArrayOutputStream();
    private final PrintStream terminal = new PrintStream(screen, true, StandardCharsets.UTF_8);
    private final ShellConsole console = new ShellConsole(terminal, () -> "g! ");
    private final OutputStream shellOut = console.output(terminal);
    private final PrintStream log = new PrintStream(console.gate(terminal), true, StandardCharsets.UTF_8);

    private String screen() {
        return screen.toString(StandardCharsets.UTF_8);
    }

    private void shell(String text) throws Exception {
        shellOut.write(text.getBytes(StandardCharsets.UTF_8));
    }

    /** The keyboard as the shell reads it: byte by byte, up to the end of the line. */
    private static void readLine(InputStream keyboard) throws Exception {
        int c;
        do {
            c = keyboard.read();
        } while (c != '\n' && c != -1);
    }

    @Test
    void logLinesWrittenWhileACommandRunsAppearAfterItsOutputBeforeTheNextPrompt() throws Exception {
        InputStream keyboard = console.keyboard(new ByteArrayInputStream("smbd:perf\n".getBytes(StandardCharsets.US_ASCII)));
        log.println("INFO before the command"); // at the prompt: shown at once
        shell("g! ");
        readLine(keyboard);
        assertTrue(console.holding());
        log.println("INFO connection 1 established");
        shell("perf: send 100 messages\n");
        log.println("INFO connection 1 closed");
        shell("  server confirmed 100 messages\n");
        assertFalse(screen().contains("connection 1"), "held back while the command runs: " + screen());
        shell("g! ");
        assertFalse(console.holding());
        assertEquals("INFO before the command\ng! perf: send 100 messages\n  server confirmed 100 messages\n"
                + "INFO connection 1 established\nINFO connection 1 closed\ng! ", screen());
        log.println("INFO at the prompt again");
        assertTrue(screen().endsWith("g! INFO at the prompt again\n"), "passes through again: " + screen());
    }

    @Test
    void aPromptThatIsNotPlainTextEndsTheCommandWhenTheShellReadsTheKeyboardAgain() throws Exception {
        ShellConsole noPrompt = new ShellConsole(terminal, () -> null);
        InputStream keyboard = noPrompt.keyboard(new ByteArrayInputStream("a\nb\n".getBytes(StandardCharsets.US_ASCII)));
        readLine(keyboard);
        new PrintStream(noPrompt.gate(terminal), true, StandardCharsets.UTF_8).println("held");
        noPrompt.output(terminal).write("result\n> ".getBytes(StandardCharsets.US_ASCII));
        assertEquals("result\n> ", screen());
        keyboard.read();
        assertEquals("result\n> held\n", screen());
    }

    @Test
    void closingShowsWhatIsHeldAndLetsEverythingThrough() throws Exception {
        readLine(console.keyboard(new ByteArrayInputStream("exit\n".getBytes(StandardCharsets.US_ASCII))));
        log.println("INFO stopping the runtime");
        assertEquals("", screen());
        console.close();
        assertEquals("INFO stopping the runtime\n", screen());
        readLine(console.keyboard(new ByteArrayInputStream("x\n".getBytes(StandardCharsets.US_ASCII))));
        assertFalse(console.holding(), "closed: nothing is held any more");
        log.println("INFO bundle stopped");
        assertEquals("INFO stopping the runtime\nINFO bundle stopped\n", screen());
    }

    @Test
    void aCommandThatLogsMoreThanTheLimitHasItsLinesShownAsTheyCome() throws Exception {
        readLine(console.keyboard(new ByteArrayInputStream("flood\n".getBytes(StandardCharsets.US_ASCII))));
        byte[] line = new byte[1 << 16];
        java.util.Arrays.fill(line, (byte) 'x');
        int lines = ShellConsole.LIMIT / line.length + 1;
        for (int i = 0; i < lines; i++) {
            log.write(line, 0, line.length);
        }
        assertEquals((long) lines * line.length, screen.size(), "nothing lost, nothing held beyond the limit");
        assertFalse(console.holding());
    }
}
