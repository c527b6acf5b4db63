package smbdirect.dist.etc;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Reader;
import java.io.StringReader;
import java.io.Writer;
import java.lang.reflect.Array;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.felix.utils.properties.TypedProperties;

/**
 * One configuration file under {@code etc/}, in the format Apache Felix FileInstall reads
 * ({@code .cfg}: Java properties, plain or typed), read and written with FileInstall's own
 * properties library ({@code org.apache.felix.utils.properties}, embedded) so that comments,
 * order and the plain-or-typed style of a file survive a write.
 *
 * <p>Writes replace the file atomically: the new content goes to a hidden temporary file in the
 * same directory (a name FileInstall's filter does not match), is forced to disk, and is renamed
 * over the file. A crash leaves either the old or the new file, never a part of one. (FileInstall's
 * own write-back truncates the file and writes it in place; the runtime disables it.)
 *
 * <p>Stateless; callers serialize writes of one file.
 */
public final class ConfigurationFile {

    /** FileInstall's configuration property naming the file a configuration came from (a file: URI). */
    public static final String FILENAME = "felix.fileinstall.filename";
    /** FileInstall reads .cfg files in ISO-8859-1 unless felix.fileinstall.configEncoding says otherwise. */
    static final Charset ENCODING = StandardCharsets.ISO_8859_1;

    private static final Set<String> NOT_IN_FILES = Set.of("service.pid", "service.factoryPid", FILENAME);
    private static final Set<PosixFilePermission> PUBLIC = PosixFilePermissions.fromString("rw-r--r--");
    private static final Set<PosixFilePermission> PRIVATE = PosixFilePermissions.fromString("rw-------");

    private ConfigurationFile() {
    }

    /** The file a FileInstall file: URI names. */
    public static Path fromUri(String uri) {
        return Path.of(URI.create(uri));
    }

    /** The file: URI FileInstall records for {@code file} (absolute). */
    public static String toUri(Path file) {
        return file.toAbsolutePath().toFile().toURI().toString();
    }

    /** Whether {@code key} is kept out of files (identity and origin of a configuration). */
    static boolean notInFiles(String key) {
        return NOT_IN_FILES.contains(key);
    }

    /**
     * The values of {@code file} as FileInstall reads them (no variable substitution): strings for a
     * plain file, typed values for a typed one.
     */
    public static Map<String, Object> read(Path file) throws IOException {
        TypedProperties p = load(file);
        Map<String, Object> values = new LinkedHashMap<>();
        for (String key : p.keySet()) {
            values.put(key, p.get(key));
        }
        return values;
    }

    /**
     * Makes {@code file} hold exactly {@code values} (keys of {@link #NOT_IN_FILES} left out), keeping
     * the comments, order and style of the existing file; a new file starts with {@code header}
     * (comment lines, without "#"). Replaces the file atomically, and only when its content changes.
     *
     * @param privateFile whether a new file is readable by its owner only (credentials)
     * @return whether the file was written
     */
    public static boolean write(Path file, Map<String, ?> values, List<String> header, boolean privateFile)
            throws IOException {
        return write(file, values, header, Map.of(), privateFile);
    }

    /**
     * {@link #write(Path, Map, List, boolean)}, with {@code comments} (lines without "#") placed above
     * the keys the file does not have yet.
     */
    public static boolean write(Path file, Map<String, ?> values, List<String> header,
            Map<String, List<String>> comments, boolean privateFile) throws IOException {
        byte[] before = Files.exists(file) ? Files.readAllBytes(file) : null;
        byte[] after = render(before, values, header, comments);
        if (before != null && Arrays.equals(before, after)) {
            return false;
        }
        replace(file, after, privateFile);
        return true;
    }

    /** The content {@code write} would write over {@code existing} (null: a new file). */
    static byte[] render(byte[] existing, Map<String, ?> values, List<String> header,
            Map<String, List<String>> comments) throws IOException {
        TypedProperties p = new TypedProperties(false);
        if (existing != null) {
            try (Reader r = new StringReader(new String(existing, ENCODING))) {
                p.load(r);
            }
        } else if (header != null && !header.isEmpty()) {
            List<String> lines = new ArrayList<>();
            for (String line : header) {
                lines.add(line.isEmpty() ? "#" : "# " + line);
            }
            String first = values.keySet().stream().filter(k -> !notInFiles(k)).findFirst().orElse(null);
            List<String> firstComment = first == null ? List.of() : comments.getOrDefault(first, List.of());
            if (firstComment.isEmpty() || !firstComment.get(0).isEmpty()) {
                lines.add(""); // else the first key's comment starts with its own blank line
            }
            p.setHeader(lines);
        }
        boolean typed = false;
        for (String key : p.keySet()) {
            typed |= !(p.get(key) instanceof String);
        }
        for (Object v : values.values()) {
            typed |= v != null && isMultiValued(v); // FileInstall reads multiple values from typed files only
        }
        for (String key : new ArrayList<>(p.keySet())) {
            if (!values.containsKey(key) || notInFiles(key)) {
                p.remove(key);
            }
        }
        for (Map.Entry<String, ?> e : values.entrySet()) {
            if (notInFiles(e.getKey()) || e.getValue() == null) {
                continue;
            }
            Object value = typed ? asArray(e.getValue()) : String.valueOf(e.getValue());
            Object old = p.get(e.getKey());
            List<String> comment = comments.get(e.getKey());
            if (old == null && comment != null && !comment.isEmpty()) {
                p.put(e.getKey(), comment.stream().map(c -> c.isEmpty() ? "" : "# " + c).toList(), value);
            } else if (!sameValue(old, value)) {
                p.put(e.getKey(), value);
            }
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (Writer w = new OutputStreamWriter(out, ENCODING)) {
            p.save(w);
        }
        return out.toByteArray();
    }

    /** Deletes {@code file} (one unlink: FileInstall sees it gone or present); absent: returns false. */
    public static boolean delete(Path file) throws IOException {
        try {
            Files.delete(file);
            return true;
        } catch (NoSuchFileException e) {
            return false;
        }
    }

    /**
     * Replaces {@code file} with {@code content} atomically: temporary file in the same directory,
     * forced to disk, renamed over the target, directory forced. Permissions of an existing file are
     * kept; a new file gets rw-r--r-- (or rw------- when {@code privateFile}).
     */
    static void replace(Path file, byte[] content, boolean privateFile) throws IOException {
        replace(file, bytes(content), privateFile, false);
    }

    /**
     * Replaces {@code file} with {@code content} as {@link #replace(Path, byte[], boolean)} does, the
     * result readable by its owner only whatever the permissions the file had (a secret); where the
     * file system has no POSIX permissions, as nearly as {@link java.io.File} can say it.
     */
    static void replaceSecret(Path file, byte[] content) throws IOException {
        replace(file, bytes(content), true, true);
    }

    private static Content bytes(byte[] content) {
        return ch -> {
            ByteBuffer b = ByteBuffer.wrap(content);
            while (b.hasRemaining()) {
                ch.write(b);
            }
        };
    }

    /** Writes the content of a file into a channel (may fail half-way; the target is not touched then). */
    interface Content {
        void writeTo(FileChannel channel) throws IOException;
    }

    static void replace(Path file, Content content, boolean privateFile) throws IOException {
        replace(file, content, privateFile, false);
    }

    /** {@code secret}: readable by the owner only even where the file was readable by others. */
    private static void replace(Path file, Content content, boolean privateFile, boolean secret) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path tmp = Files.createTempFile(dir, "." + file.getFileName() + ".", ".tmp");
        try {
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
                content.writeTo(ch);
                ch.force(true);
            }
            permissions(tmp, file, privateFile, secret);
            try {
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                throw new IOException("the file system of " + dir + " cannot rename atomically; " + file
                        + " not written", e);
            }
            forceDirectory(dir);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    private static void permissions(Path tmp, Path target, boolean privateFile, boolean secret) throws IOException {
        PosixFileAttributeView view = Files.getFileAttributeView(tmp, PosixFileAttributeView.class);
        if (view == null) {
            if (secret) {
                java.io.File f = tmp.toFile();
                f.setReadable(false, false);
                f.setReadable(true, true);
                f.setWritable(false, false);
                f.setWritable(true, true);
            }
            return;
        }
        Set<PosixFilePermission> keep = null;
        if (!secret && Files.exists(target)) {
            PosixFileAttributeView old = Files.getFileAttributeView(target, PosixFileAttributeView.class);
            keep = old == null ? null : old.readAttributes().permissions();
        }
        view.setPermissions(keep != null ? keep : privateFile ? PRIVATE : PUBLIC);
    }

    private static void forceDirectory(Path dir) {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException e) {
            // not every platform can open a directory (the rename itself is done)
        }
    }

    /**
     * Why FileInstall cannot read {@code file}: the first line that fails, as
     * {@code "line N: KEY = VALUE: REASON"}, or {@code null} when the file reads. Follows what
     * FileInstall does: properties syntax (a {@code \\u} escape without its four hex digits), then,
     * in a typed file (every value typed), each typed value.
     */
    public static String diagnose(Path file) throws IOException {
        List<String> lines = Files.readAllLines(file, ENCODING);
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#") || line.startsWith("!")) {
                continue;
            }
            int bad = brokenEscape(line);
            if (bad >= 0) {
                return "line " + (i + 1) + ": " + line + ": a \\u escape needs four hex digits";
            }
        }
        TypedProperties p = new TypedProperties(false);
        try (Reader r = Files.newBufferedReader(file, ENCODING)) {
            p.load(r);
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
        for (String key : p.keySet()) {
            try {
                p.get(key);
            } catch (RuntimeException e) {
                Throwable root = e;
                while (root.getCause() != null) {
                    root = root.getCause();
                }
                String raw = String.join(" ", p.getRaw(key)).strip();
                return "line " + lineOf(lines, key) + ": " + raw + ": " + root.getMessage();
            }
        }
        return null;
    }

    private static int brokenEscape(String line) {
        for (int i = line.indexOf("\\u"); i >= 0; i = line.indexOf("\\u", i + 2)) {
            int backslashes = 0;
            for (int j = i - 1; j >= 0 && line.charAt(j) == '\\'; j--) {
                backslashes++;
            }
            if (backslashes % 2 == 1) {
                continue; // an escaped backslash followed by u
            }
            if (i + 6 > line.length() || !line.substring(i + 2, i + 6).chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
                return i;
            }
        }
        return -1;
    }

    private static int lineOf(List<String> lines, String key) {
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.startsWith(key) && line.substring(key.length()).strip().matches("^[=:].*")) {
                return i + 1;
            }
        }
        return 0;
    }

    private static TypedProperties load(Path file) throws IOException {
        TypedProperties p = new TypedProperties(false);
        if (Files.exists(file)) {
            try (Reader r = Files.newBufferedReader(file, ENCODING)) {
                p.load(r);
            }
        }
        return p;
    }

    /**
     * A collection as an array of its element type: FileInstall 3.7.4 reads a multi-line typed
     * collection ("( ... )") back as one string, an array ("[ ... ]") as an array.
     */
    static Object asArray(Object v) {
        if (!(v instanceof Collection<?> c)) {
            return v;
        }
        Class<?> type = null;
        for (Object o : c) {
            Class<?> t = o == null ? null : o.getClass();
            type = type == null ? t : (type == t ? type : Object.class);
        }
        if (type == null || type == Object.class) {
            return c.stream().map(String::valueOf).toArray(String[]::new);
        }
        Object array = Array.newInstance(type, c.size());
        int i = 0;
        for (Object o : c) {
            Array.set(array, i++, o);
        }
        return array;
    }

    private static boolean isMultiValued(Object v) {
        return v.getClass().isArray() || v instanceof Collection;
    }

    private static boolean sameValue(Object a, Object b) {
        if (a == null || b == null) {
            return a == b;
        }
        if (a.getClass().isArray() && b.getClass().isArray()) {
            int n = Array.getLength(a);
            if (n != Array.getLength(b)) {
                return false;
            }
            for (int i = 0; i < n; i++) {
                if (!sameValue(Array.get(a, i), Array.get(b, i))) {
                    return false;
                }
            }
            return true;
        }
        return a.equals(b);
    }
}
