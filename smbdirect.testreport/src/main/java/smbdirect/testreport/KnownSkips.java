package smbdirect.testreport;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The skips that are facts rather than missing judges, each with its reason: {@code known-skips.txt}.
 * One entry per line, three fields separated by {@code " | "}:
 * <ol>
 * <li>which test: {@code module:class} (a whole class) or {@code module:class#test}, the class
 * fully qualified, {@code *} standing for any characters;</li>
 * <li>the start of the reason the skip gives (its {@code @Disabled} text or assumption message), or
 * {@value #NO_REPORT} for a test class the build does not run by design (it then has no report);</li>
 * <li>why this skip is a fact of the thing tested and not a judge that is missing here.</li>
 * </ol>
 * Blank lines and lines starting with {@code #} are comments. Immutable.
 */
final class KnownSkips {

    /** Second field of an entry for a test class the build does not run by design. */
    static final String NO_REPORT = "(no report)";

    /** One entry, with its line number. */
    record Entry(int line, String test, String reason, String why, Pattern pattern) {

        /** Whether {@code o}, a skip, is this entry's. */
        boolean matches(Outcome o) {
            return !reason.equals(NO_REPORT) && pattern.matcher(o.key()).matches() && o.reason().startsWith(reason);
        }

        /** Whether the test class {@code className} of {@code module}, which has no report, is this entry's. */
        boolean matchesUnreported(String module, String className) {
            return reason.equals(NO_REPORT) && pattern.matcher(module + ":" + className).matches();
        }
    }

    private final Path file;
    private final List<Entry> entries;

    private KnownSkips(Path file, List<Entry> entries) {
        this.file = file;
        this.entries = List.copyOf(entries);
    }

    /** Reads {@code file}; a malformed line is refused with its number. */
    static KnownSkips read(Path file) throws IOException {
        List<Entry> entries = new ArrayList<>();
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String[] f = line.split(" \\| ", -1);
            if (f.length != 3 || f[0].isBlank() || f[1].isBlank() || f[2].isBlank() || !f[0].contains(":")) {
                throw new IllegalArgumentException(file + ":" + (i + 1) + ": not 'module:class[#test] | reason | why"
                        + " it is a fact': " + line);
            }
            entries.add(new Entry(i + 1, f[0].strip(), f[1].strip(), f[2].strip(), glob(f[0].strip())));
        }
        return new KnownSkips(file, entries);
    }

    /** {@code *} stands for any characters, everything else for itself. */
    static Pattern glob(String test) {
        StringBuilder re = new StringBuilder();
        String[] parts = test.split("\\*", -1);
        for (int i = 0; i < parts.length; i++) {
            if (i > 0) {
                re.append(".*");
            }
            if (!parts[i].isEmpty()) {
                re.append(Pattern.quote(parts[i]));
            }
        }
        return Pattern.compile(re.toString());
    }

    /** The entry that covers the skip {@code o}, or null. */
    Entry find(Outcome o) {
        for (Entry e : entries) {
            if (e.matches(o)) {
                return e;
            }
        }
        return null;
    }

    /** The entry that says the test class has no report by design, or null. */
    Entry findUnreported(String module, String className) {
        for (Entry e : entries) {
            if (e.matchesUnreported(module, className)) {
                return e;
            }
        }
        return null;
    }

    List<Entry> entries() {
        return entries;
    }

    Path file() {
        return file;
    }
}
