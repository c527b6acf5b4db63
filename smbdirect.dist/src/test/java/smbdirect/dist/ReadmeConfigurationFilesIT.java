package smbdirect.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import smbdirect.dist.etc.ConfigurationFile;

/**
 * Every configuration file README.md shows an operator to copy into {@code etc/}, copied as written
 * into a fresh appliance home and the appliance started as a process: the values are in force. A
 * configuration block is a code block whose first line names its file ({@code # etc/NAME.cfg}); a
 * block of {@code key = value} lines that names no file fails the test, so none is left out.
 * docs/runtime.md is read the same way, its blocks in homes of their own (it has none today: it
 * quotes settings inline and points to the README's). Blocks are copied in the order of the document; a block naming a file
 * an earlier one wrote starts a fresh home (the README's "Serving files" starts over from its
 * "Configuration").
 *
 * <p>What the README marks as the reader's own is replaced, and only that ({@link #replacements}):
 * the example server's storage address 192.168.1.10:5445 by this host's loopback and a free port,
 * and the shared directory /srv/share by a new empty directory. 10.0.0.5:5445 stays: the provider
 * only allows listeners there and opens no port by itself.
 *
 * <p>In force means: no WARN or ERROR line at all (a misspelt key is named with its nearest known
 * name, a bad value refused by name, both as WARN or ERROR), health OK with no finding, each file in
 * {@code etc/} still holding the block's values (a refused configuration has the last good values
 * put back into its file), and what the configuration does, seen from outside: the iWARP provider
 * in smbdirect.json with each value of its block in its settings; the file server's listener OPEN on
 * the block's address and provider, and the log line the README quotes. A block for a configuration
 * this test knows no outside check for fails it, naming the file.
 */
class ReadmeConfigurationFilesIT {

    private static final Path README = Path.of("..", "README.md");
    private static final Path RUNTIME_DOC = Path.of("..", "docs", "runtime.md");
    private static final Pattern FENCE = Pattern.compile("^\\s*```");
    private static final Pattern NAMES_FILE = Pattern.compile("^#\\s*etc/(\\S+\\.cfg)\\b.*");
    private static final Pattern KEY_VALUE = Pattern.compile("^\\s*[A-Za-z][\\w.\\-]*\\s*=.*");
    /** The README's log line once the file server serves ("The log then says `...`"). */
    private static final Pattern STARTED = Pattern.compile("`(file\\s+server\\s+started:\\s[^`]+)`");

    /** A configuration block: where it is in its document, the file it names, its text as written. */
    record Block(Path doc, int line, String file, String text) {
        String name() {
            return doc.getFileName() + ":" + line + " (etc/" + file + ")";
        }

        String pid() {
            return file.substring(0, file.length() - ".cfg".length());
        }
    }

    @TempDir
    Path temp;

    /** The configuration blocks of {@code doc}, in order. */
    static List<Block> blocks(Path doc) throws IOException {
        List<String> lines = Files.readAllLines(doc, StandardCharsets.UTF_8);
        List<Block> blocks = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            if (!FENCE.matcher(lines.get(i)).find()) {
                continue;
            }
            int start = i + 1;
            int end = start;
            while (end < lines.size() && !FENCE.matcher(lines.get(end)).find()) {
                end++;
            }
            List<String> body = lines.subList(start, Math.min(end, lines.size())).stream().map(String::strip).toList();
            i = end;
            if (body.isEmpty()) {
                continue;
            }
            Matcher named = NAMES_FILE.matcher(body.get(0));
            List<String> settings = body.stream().filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
            boolean keyValues = !settings.isEmpty() && settings.stream().allMatch(l -> KEY_VALUE.matcher(l).matches());
            if (named.matches()) {
                blocks.add(new Block(doc, start + 1, named.group(1), String.join("\n", body) + "\n"));
            } else if (keyValues) {
                throw new AssertionError(doc.getFileName() + ":" + (start + 1) + ": a block of settings that names no"
                        + " file (its first line should be `# etc/NAME.cfg`):\n" + String.join("\n", body));
            }
        }
        return blocks;
    }

    /**
     * What the README marks as the reader's own, replaced by this run's: the example server's
     * storage address and the directory it shares.
     */
    private static Map<String, String> replacements(int port, Path share) {
        Map<String, String> r = new LinkedHashMap<>();
        r.put("192.168.1.10:5445", "127.0.0.1:" + port);
        r.put("/srv/share", share.toString());
        return r;
    }

    private static String replace(String text, Map<String, String> replacements) {
        for (Map.Entry<String, String> e : replacements.entrySet()) {
            text = text.replace(e.getKey(), e.getValue());
        }
        return text;
    }

    @Test
    void everyConfigurationFileTheReadmeShowsIsInForceAsWritten() throws Exception {
        List<Block> readme = blocks(README);
        assertTrue(readme.size() >= 3, "the README's configuration files: " + readme);
        int port = RuntimeProcess.freePort();
        Path share = Files.createDirectories(temp.resolve("share")).toRealPath();
        Map<String, String> replacements = replacements(port, share);
        for (Path doc : List.of(README, RUNTIME_DOC)) {
            String text = Files.readString(doc);
            for (List<Block> group : homes(doc.equals(README) ? readme : blocks(doc))) {
                checkInForce(group, replacements, text);
            }
        }
    }

    /**
     * A misspelt key in a README block (the software iWARP provider's) fails the check, naming the
     * block: the check can tell a block that is not in force.
     */
    @Test
    void aMisspeltKeyInABlockFailsTheCheckNamingTheBlock() throws Exception {
        Block iwarp = blocks(README).stream().filter(b -> b.file().equals("smbdirect.rdma.iwarp.cfg")).findFirst()
                .orElseThrow(() -> new AssertionError("the README shows etc/smbdirect.rdma.iwarp.cfg"));
        assertTrue(iwarp.text().contains("crc = "), iwarp.text());
        Block misspelt = new Block(iwarp.doc(), iwarp.line(), iwarp.file(), iwarp.text().replace("crc = ", "crcc = "));
        AssertionError e = assertThrows(AssertionError.class,
                () -> checkInForce(List.of(misspelt), Map.of(), Files.readString(README)));
        assertTrue(e.getMessage().contains(iwarp.name()), e.getMessage());
        assertTrue(e.getMessage().contains("crcc"), e.getMessage());
    }

    /** The blocks in order, a new group (home) whenever a block names a file the group has. */
    private static List<List<Block>> homes(List<Block> blocks) {
        List<List<Block>> homes = new ArrayList<>();
        List<Block> current = new ArrayList<>();
        for (Block b : blocks) {
            if (current.stream().anyMatch(c -> c.file().equals(b.file()))) {
                homes.add(current);
                current = new ArrayList<>();
            }
            current.add(b);
        }
        if (!current.isEmpty()) {
            homes.add(current);
        }
        return homes;
    }

    /** Copies {@code group} into a fresh home, starts the appliance, checks every block is in force. */
    private void checkInForce(List<Block> group, Map<String, String> replacements, String docText) throws Exception {
        String names = String.join(", ", group.stream().map(Block::name).toList());
        Path home = Files.createTempDirectory(temp, "home");
        Path etc = Files.createDirectories(home.resolve("etc"));
        Map<Block, String> copied = new LinkedHashMap<>();
        for (Block b : group) {
            String text = replace(b.text(), replacements);
            Path file = etc.resolve(b.file());
            Files.writeString(file, text, StandardCharsets.UTF_8);
            if (text.lines().anyMatch(l -> l.strip().startsWith("password"))) {
                // "The file holds the password as written: chmod 600 it"
                Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
            }
            copied.put(b, text);
        }
        try (RuntimeProcess runtime = RuntimeProcess.start(home)) {
            runtime.awaitUp(Duration.ofSeconds(60));
            String password = runtime.generatedPassword();
            List<String> unchecked = new ArrayList<>();
            for (Map.Entry<Block, String> c : copied.entrySet()) {
                Block b = c.getKey();
                Map<String, Object> values = ConfigurationFile.read(etc.resolve(b.file()));
                switch (b.pid()) {
                    case "smbdirect.rdma.iwarp" -> {
                        Map<String, String> said = new LinkedHashMap<>();
                        values.forEach((k, v) -> {
                            String words = iwarpInWords(k, v);
                            if (words == null) {
                                unchecked.add(b.name() + ": no check of iWARP setting " + k + " = " + v);
                            } else {
                                said.put(k, words);
                            }
                        });
                        runtime.awaitJson(password, j -> iwarpShows(j, said.values()),
                                b.name() + ": the iwarp provider saying the block's values " + said);
                    }
                    case "smbdirect.example.fileserver" -> {
                        String address = String.valueOf(values.get("listenAddress"));
                        String provider = String.valueOf(values.get("provider"));
                        runtime.awaitJson(password, j -> open(j, address, provider),
                                b.name() + ": the file server's listener OPEN at " + address + " on " + provider);
                        Matcher started = STARTED.matcher(docText);
                        assertTrue(started.find(), b.doc() + " quotes the file server's log line");
                        runtime.awaitOutput(replace(started.group(1).replaceAll("\\s+", " "), replacements),
                                Duration.ofSeconds(30));
                    }
                    default -> throw new AssertionError(b.name() + ": no check of the values in force for etc/"
                            + b.file() + " (add one)");
                }
            }
            Map<String, Object> json = runtime.json(password, null);
            List<String> problems = new ArrayList<>(unchecked);
            for (String line : runtime.output().split("\n")) {
                if (line.contains(" WARN ") || line.contains(" ERROR ")) {
                    problems.add(line);
                }
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> health = (Map<String, Object>) json.get("health");
            @SuppressWarnings("unchecked")
            List<String> findings = (List<String>) health.get("findings");
            for (String f : findings) {
                if (!f.startsWith("OK ")) {
                    problems.add("health: " + f);
                }
            }
            for (Map.Entry<Block, String> c : copied.entrySet()) {
                Path file = etc.resolve(c.getKey().file());
                Path asCopied = Files.writeString(temp.resolve("copied-" + c.getKey().file()), c.getValue());
                if (!sameValues(ConfigurationFile.read(asCopied), ConfigurationFile.read(file))) {
                    problems.add("etc/" + c.getKey().file() + " changed from the block's values to:\n"
                            + Files.readString(file));
                }
            }
            if (!problems.isEmpty() || !"OK".equals(health.get("status"))) {
                throw new AssertionError(names + ": not in force as written (health " + health.get("status") + "):\n"
                        + String.join("\n", problems) + "\n--- output:\n" + runtime.output());
            }
            assertEquals(0, runtime.terminate(Duration.ofSeconds(30)), names + ": exit status\n" + runtime.output());
        }
    }

    /**
     * smbdirect.json lists the provider {@code iwarp}, its settings (in words, as the status page shows
     * them) saying each of {@code values}.
     */
    @SuppressWarnings("unchecked")
    private static boolean iwarpShows(Map<String, Object> json, java.util.Collection<String> said) {
        List<Map<String, Object>> providers = (List<Map<String, Object>>) ((Map<String, Object>) json.get("transport"))
                .get("providers");
        return providers.stream().filter(p -> "iwarp".equals(p.get("name")))
                .anyMatch(p -> said.stream().allMatch(String.valueOf(p.get("settings"))::contains));
    }

    /**
     * How the iWARP provider's settings in words say {@code key = value} (the keys the README uses);
     * null for a key without a check (a misspelt one: the runtime then warns of it).
     */
    private static String iwarpInWords(String key, Object value) {
        String v = String.valueOf(value);
        return switch (key) {
            case "listenAddresses" -> "may listen on " + v;
            case "crc" -> Boolean.parseBoolean(v) ? ", CRC32C asked for" : ", no CRC32C asked for";
            case "maxFpduSize" -> v.equals("0") ? "FPDUs sized to each connection's TCP MSS" : "FPDUs up to ";
            default -> null;
        };
    }

    /** smbdirect.json lists a listener OPEN at {@code address} on {@code provider}. */
    @SuppressWarnings("unchecked")
    private static boolean open(Map<String, Object> json, String address, String provider) {
        List<Map<String, Object>> listeners = (List<Map<String, Object>>) ((Map<String, Object>) json.get("transport"))
                .get("listeners");
        return listeners.stream().anyMatch(l -> address.equals(l.get("address")) && provider.equals(l.get("provider"))
                && "OPEN".equals(l.get("state")));
    }

    private static boolean sameValues(Map<String, Object> a, Map<String, Object> b) {
        if (!a.keySet().equals(b.keySet())) {
            return false;
        }
        return a.keySet().stream().allMatch(k -> String.valueOf(render(a.get(k))).equals(String.valueOf(render(b.get(k)))));
    }

    private static Object render(Object v) {
        return v instanceof Object[] many ? List.of(many) : v;
    }

    @Test
    void aBlockOfSettingsThatNamesNoFileIsNamed() throws Exception {
        Path doc = Files.writeString(temp.resolve("doc.md"), "text\n\n```\nlistenAddresses = 10.0.0.5:5445\n```\n");
        AssertionError e = assertThrows(AssertionError.class, () -> blocks(doc));
        assertTrue(e.getMessage().startsWith("doc.md:4: a block of settings that names no file"), e.getMessage());
        assertFalse(blocks(Files.writeString(temp.resolve("other.md"), "```\n[Unit]\nA=b\n```\n")).iterator().hasNext());
    }
}
