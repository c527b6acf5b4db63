package smbdirect.interop.fileserver;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The README's cifs mount command ("Serving files: the reference SMB2 file server"), as a guest runs
 * it: the line is read from README.md and only what the README marks as the reader's own is
 * replaced: the server's address (192.168.1.10 in the README) and the account ({@code alice},
 * {@code change-me}). The share name, the mount point and every other option are the README's.
 * Each replaced value must occur in the line exactly once, so a README whose line changed shape
 * fails here, by name, rather than being run half-replaced. Also the guest variant the README names
 * in its prose ({@code -o rdma,vers=3.1.1,guest}).
 */
final class ReadmeMount {

    /** README.md, from the module's directory (where Maven runs the tests). */
    static final Path README = Path.of("..", "README.md");
    /** What the README's line uses for the reader's own server address and account. */
    static final String README_ADDRESS = "192.168.1.10";
    static final String README_USER = "alice";
    static final String README_PASSWORD = "change-me";

    private static final Pattern LINE = Pattern.compile("(?m)^mount -t cifs .*$");
    private static final Pattern SHAPE = Pattern.compile("mount -t cifs (//[^/\\s]+/\\S+) (\\S+) -o (\\S+)");
    private static final Pattern GUEST = Pattern.compile("`-o (rdma,[^`\\s]*guest[^`\\s]*)`");

    /** One mount command: the UNC, the mount point and the options as given to {@code -o}. */
    record Command(String line, String unc, String mountPoint, String options) {
    }

    private ReadmeMount() {
    }

    private static String readme() {
        try {
            return Files.readString(README);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The README's mount line, exactly as written (there must be exactly one). */
    static String asWritten() {
        Matcher m = LINE.matcher(readme());
        List<String> lines = m.results().map(r -> r.group().strip()).toList();
        assertEquals(1, lines.size(), "README.md has exactly one `mount -t cifs` line: " + lines);
        return lines.get(0);
    }

    /**
     * The README's line with the server address and the account replaced, nothing else: what the
     * guest runs.
     */
    static Command forServer(String address, String user, String password) {
        String line = asWritten();
        line = replaceOnce(line, "//" + README_ADDRESS + "/", "//" + address + "/", "the server address");
        line = replaceOnce(line, "username=" + README_USER, "username=" + user, "the user name");
        line = replaceOnce(line, "password=" + README_PASSWORD, "password=" + password, "the password");
        return parse(line);
    }

    /** The options of the README's guest mount ({@code -o rdma,vers=3.1.1,guest} in its prose). */
    static String guestOptions() {
        List<String> found = GUEST.matcher(readme()).results().map(r -> r.group(1)).distinct().toList();
        assertEquals(1, found.size(), "README.md names one guest mount's options: " + found);
        return found.get(0);
    }

    static Command parse(String line) {
        Matcher m = SHAPE.matcher(line);
        if (!m.matches()) {
            throw new AssertionError("the README's mount line is not `mount -t cifs //SERVER/SHARE DIR -o OPTIONS`: "
                    + line);
        }
        return new Command(line, m.group(1), m.group(2), m.group(3));
    }

    private static String replaceOnce(String line, String what, String by, String name) {
        int at = line.indexOf(what);
        if (at < 0 || line.indexOf(what, at + 1) >= 0) {
            throw new AssertionError("the README's mount line should name " + name + " `" + what
                    + "` exactly once: " + line);
        }
        return line.substring(0, at) + by + line.substring(at + what.length());
    }
}
