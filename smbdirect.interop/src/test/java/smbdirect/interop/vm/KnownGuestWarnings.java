package smbdirect.interop.vm;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The guest kernel warnings and hung-task reports known not to be caused by what the host sends,
 * each for one kernel version and with the reason: {@code known-guest-kernel-warnings.txt} beside
 * this class (three fields per line separated by {@code " | "}: kernel version with {@code *} for
 * any characters, a regular expression found in the kernel's line, why it is not ours). Immutable,
 * thread-safe.
 */
final class KnownGuestWarnings {

    /** One entry: its kernel version pattern, what it finds in a line, and why that is not ours. */
    record Entry(Pattern kernel, Pattern line, String why) {
    }

    private static final String FILE = "known-guest-kernel-warnings.txt";
    static final List<Entry> ENTRIES = read();

    private KnownGuestWarnings() {
    }

    /** Whether {@code line}, from a guest running {@code kernel}, is a known warning or hung task. */
    static boolean isKnown(String kernel, String line) {
        for (Entry e : ENTRIES) {
            if (e.kernel().matcher(kernel).matches() && e.line().matcher(line).find()) {
                return true;
            }
        }
        return false;
    }

    private static List<Entry> read() {
        List<Entry> out = new ArrayList<>();
        try (InputStream in = KnownGuestWarnings.class.getResourceAsStream(FILE)) {
            if (in == null) {
                throw new IllegalStateException(FILE + " is missing beside " + KnownGuestWarnings.class.getName());
            }
            List<String> lines = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
            for (int i = 0; i < lines.size(); i++) {
                String l = lines.get(i).strip();
                if (l.isEmpty() || l.startsWith("#")) {
                    continue;
                }
                String[] f = l.split(" \\| ", -1);
                if (f.length != 3 || f[0].isBlank() || f[1].isBlank() || f[2].isBlank()) {
                    throw new IllegalStateException(FILE + ":" + (i + 1) + ": not 'kernel | regular expression | why"
                            + " it is not ours': " + l);
                }
                out.add(new Entry(Pattern.compile(Pattern.quote(f[0].strip()).replace("*", "\\E.*\\Q")),
                        Pattern.compile(f[1].strip()), f[2].strip()));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return List.copyOf(out);
    }
}
