package smbdirect.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import smbdirect.testsupport.Judges;

/**
 * The README's quick start as a newcomer runs it: a fresh {@code git clone} of this repository
 * (a {@code file://} clone of the checkout the build runs in: its committed {@code HEAD}, nothing
 * from outside), the first command of the README's first code block run exactly as the README
 * writes it, read from the README, on a terminal (a pseudo-terminal from util-linux {@code script})
 * in the clone's directory, then used as the README says, each claim checked the way a person sees it:
 *
 * <ul>
 * <li>the command builds the clone and starts the appliance on the mock fabric: the banner is the
 * README's ("What the runtime shows"), line for line, the home being the clone's directory; the
 * first start created {@code etc/} (the settings in force as files) and {@code data/}, and wrote a
 * generated Web Console password into {@code data/webconsole-password}, readable by its owner only;
 * <li>a clean start logs no WARN or ERROR;
 * <li>{@code smbd:perf} typed at the prompt runs the README's default perf run over the mock: every
 * line of the README's example is in the report, in order, the measured numbers aside, and its
 * confirmation (every byte) is the README's; no log line cuts the report;
 * <li>the endpoints the README names answer: {@code /system/health/live} and {@code /system/health/ready}
 * (200) and {@code /metrics} (Prometheus text) without credentials; the status page and
 * {@code smbdirect.json} with user {@code admin} and the generated password, and not without it;
 * <li>{@code exit} stops the runtime and the process ends with status 0.
 * </ul>
 *
 * <p>What it does not prove: the clone's build runs offline ({@code -o} in the clone's
 * {@code .mvn/maven.config}: the dependencies come from the local Maven repository, as they do on a
 * machine after its first build), so a dependency missing from Maven Central would go unnoticed
 * here; it builds the committed {@code HEAD}, not uncommitted changes; the README's second command
 * ({@code mvn -B verify}, the whole test suite) is the build this test is part of and is not run
 * again; the Web Console's port is the README's default, 8080, which must be free. The README's
 * {@code java} blocks are compiled and run by the tests {@code ReadmeExampleTest} lists.
 */
class ReadmeQuickStartIT {

    private static final Path README = Path.of("..", "README.md");
    /** A line of the console log (the appliance's Logback pattern starts with the date). */
    private static final Pattern LOG_LINE = Pattern.compile("^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{3} +(\\w+) .*",
            Pattern.MULTILINE);

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 60, unit = TimeUnit.MINUTES)
    void theQuickStartRunAsWrittenInAFreshCloneDoesWhatTheReadmeSays() throws Exception {
        Path script = Judges.tool("script", "apt-get install bsdutils");
        Path git = Judges.tool("git", "apt-get install git");
        Judges.tool("mvn", "apt-get install maven");
        String readme = Files.readString(README);
        String command = firstCommand(readme);
        Path checkout = Path.of("..").toAbsolutePath().normalize();
        Judges.require(Files.exists(checkout.resolve(".git")), "a git checkout of the repository (this source tree "
                + "has no .git): the quick start is run in a clone of it");
        Judges.require(portFree(8080), "port 8080 free: the quick start's command opens the Web Console on its "
                + "default port 8080, which another process holds");

        Path clone = dir.resolve("smbdirect");
        run(dir, git.toString(), "clone", "--quiet", "--no-hardlinks", checkout.toUri().toString(), clone.toString());
        Files.createDirectories(clone.resolve(".mvn"));
        Path mavenConfig = clone.resolve(".mvn/maven.config");
        Files.writeString(mavenConfig, (Files.exists(mavenConfig) ? Files.readString(mavenConfig).strip() + " " : "")
                + "-o\n");

        Path output = dir.resolve("terminal.log");
        ProcessBuilder builder = new ProcessBuilder(List.of(script.toString(), "-qfec", command, "/dev/null"))
                .directory(clone.toFile()).redirectErrorStream(true).redirectOutput(output.toFile());
        builder.environment().put("SHELL", "/bin/sh");
        Process p = builder.start();
        try (OutputStream keyboard = p.getOutputStream()) {
            await(p, output, "g! ", 1, Duration.ofMinutes(45)); // the build, then the runtime's start

            String started = read(output);
            assertBanner(readme, started, clone);
            assertTrue(Files.isRegularFile(clone.resolve("etc/smbdirect.transport.cfg")), "etc/ has the settings in force");
            assertTrue(Files.isRegularFile(clone.resolve("etc/smbdirect.listener-default.cfg")), "etc/ has the default listener");
            assertTrue(Files.isDirectory(clone.resolve("data")), "data/ was created");
            Path passwordFile = clone.resolve("data/webconsole-password");
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(passwordFile)),
                    "the generated password is readable by its owner only");
            String password = Files.readAllLines(passwordFile).stream().map(String::strip) // as cat shows it
                    .filter(l -> !l.isEmpty() && !l.startsWith("#")).findFirst().orElse("");
            assertFalse(password.isEmpty() || started.contains(password), "a password, never on the terminal");

            keyboard.write("smbd:perf\n".getBytes(StandardCharsets.US_ASCII));
            keyboard.flush();
            await(p, output, "g! ", 2, Duration.ofMinutes(3));
            assertPerfAsTheReadmeShows(readme, read(output));

            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
            assertEquals(200, get(http, "/system/health/live", null).statusCode(), "liveness without credentials");
            assertEquals(200, get(http, "/system/health/ready", null).statusCode(), "readiness without credentials");
            HttpResponse<String> metrics = get(http, "/metrics", null);
            assertEquals(200, metrics.statusCode());
            assertTrue(metrics.body().contains("# TYPE smbdirect_"), "Prometheus text:\n" + metrics.body());
            assertEquals(401, get(http, "/system/console/smbdirect.json", null).statusCode(), "the console needs the password");
            HttpResponse<String> json = get(http, "/system/console/smbdirect.json", password);
            assertEquals(200, json.statusCode(), json.body());
            assertTrue(json.body().startsWith("{") && json.body().contains("\"providers\""), json.body());
            assertEquals(200, get(http, "/system/console/smbdirect", password).statusCode(), "the status page");

            keyboard.write("exit\n".getBytes(StandardCharsets.US_ASCII));
            keyboard.flush();
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the runtime did not stop after exit:\n" + read(output));
            assertEquals(0, p.exitValue(), "exit ends the process with status 0:\n" + read(output));

            Matcher levels = LOG_LINE.matcher(read(output));
            List<String> loud = new ArrayList<>();
            while (levels.find()) {
                if (levels.group(1).equals("WARN") || levels.group(1).equals("ERROR")) {
                    loud.add(levels.group());
                }
            }
            assertEquals(List.of(), loud, "a clean start (and a perf run, and exit) logs no WARN or ERROR");
        } finally {
            if (p.isAlive()) {
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    /** The first line of the README's first code block ("Quick start"). */
    static String firstCommand(String readme) {
        Matcher block = Pattern.compile("^```\\w*\\n(.*?)\\n```$", Pattern.DOTALL | Pattern.MULTILINE).matcher(readme);
        assertTrue(block.find(), "README.md has no code block");
        assertTrue(readme.lastIndexOf("## Quick start", block.start()) >= 0, "the first code block is the quick start's");
        return block.group(1).lines().findFirst().orElseThrow().strip();
    }

    /**
     * The banner as the README shows it ("What the runtime shows": the block after the sentence that
     * it prints where to look), line for line; the README's example home is replaced by the clone's.
     */
    private static void assertBanner(String readme, String terminal, Path clone) {
        Matcher block = Pattern.compile("```\\n(SMB Direct runtime is up\\.\\n.*?)\\n```", Pattern.DOTALL).matcher(readme);
        assertTrue(block.find(), "the README shows the banner");
        String shown = block.group(1);
        String home = shown.lines().filter(l -> l.startsWith("  Home:")).findFirst().orElseThrow();
        String exampleHome = home.substring("  Home:".length()).strip().split(" +")[0];
        for (String line : shown.lines().toList()) {
            String expected = line.replace(exampleHome, clone.toString());
            assertTrue(terminal.lines().anyMatch(l -> l.equals(expected)), "the README's banner line\n" + expected
                    + "\nis not on the terminal:\n" + terminal);
        }
    }

    /**
     * The README's default perf run ("Performance runs": 10,000 messages of 8 KiB over the mock): every
     * line of the README's example in the report, in order, with the README's words and units and any
     * measured number (the addresses, rates, latencies, the busiest thread); the confirmation exactly;
     * and no log line inside the report.
     */
    private static void assertPerfAsTheReadmeShows(String readme, String terminal) {
        Matcher block = Pattern.compile("```\\n(perf: send .*? over mock, .*?)\\n```", Pattern.DOTALL).matcher(readme);
        assertTrue(block.find(), "the README shows the default perf run");
        List<String> example = block.group(1).lines().toList();
        String confirmation = example.get(example.size() - 1);
        int typed = terminal.indexOf("smbd:perf\n");
        int start = terminal.indexOf("perf: send ", typed);
        int end = terminal.indexOf(confirmation, Math.max(start, 0));
        assertTrue(typed > 0 && start > typed && end > start, "the README's perf run (... " + confirmation
                + ") in:\n" + terminal);
        String report = terminal.substring(start, end + confirmation.length());
        assertFalse(LOG_LINE.matcher(report).find(), "a log line inside perf's report:\n" + report);
        List<String> lines = report.lines().toList();
        int at = 0;
        for (String line : example) {
            Pattern shape = shape(line);
            while (at < lines.size() && !shape.matcher(lines.get(at)).matches()) {
                at++;
            }
            assertTrue(at < lines.size(), "the README's line\n" + line + "\nhas no counterpart (" + shape
                    + ") in the report, in order:\n" + report);
            at++;
        }
    }

    /** A line of the README's perf example as a pattern: its numbers any number, its time units any unit. */
    static Pattern shape(String line) {
        String busiest = line.replaceAll("busiest \\S+ ", "busiest @THREAD@ ");
        StringBuilder regex = new StringBuilder();
        Matcher token = Pattern.compile("\\d[\\d.,]*|@THREAD@|\\b(?:ns|us|ms|s)\\b").matcher(busiest);
        int last = 0;
        while (token.find()) {
            regex.append(Pattern.quote(busiest.substring(last, token.start())));
            String t = token.group();
            regex.append(t.equals("@THREAD@") ? "\\S+" : Character.isDigit(t.charAt(0)) ? "\\d[\\d.,]*" : "(?:ns|us|ms|s)");
            last = token.end();
        }
        return Pattern.compile(regex.append(Pattern.quote(busiest.substring(last))).toString());
    }

    private static HttpResponse<String> get(HttpClient http, String path, String password)
            throws IOException, InterruptedException {
        HttpRequest.Builder r = HttpRequest.newBuilder(URI.create("http://127.0.0.1:8080" + path))
                .timeout(Duration.ofSeconds(30));
        if (password != null) {
            r.header("Authorization", "Basic " + Base64.getEncoder().encodeToString(("admin:" + password)
                    .getBytes(StandardCharsets.UTF_8)));
        }
        return http.send(r.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static boolean portFree(int port) {
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static void run(Path in, String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).directory(in.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(300, TimeUnit.SECONDS), String.join(" ", command) + " did not finish");
        assertEquals(0, p.exitValue(), String.join(" ", command) + ":\n" + out);
    }

    /** Waits until {@code text} appears {@code times} times on the terminal. */
    private static void await(Process p, Path output, String text, int times, Duration limit)
            throws IOException, InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (read(output).split(Pattern.quote(text), -1).length - 1 < times) {
            if (!p.isAlive() || System.nanoTime() > deadline) {
                throw new AssertionError("no '" + text + "' (" + times + ") on the terminal within " + limit + ":\n"
                        + read(output));
            }
            TimeUnit.MILLISECONDS.sleep(200);
        }
    }

    private static String read(Path output) throws IOException {
        return Files.exists(output) ? Files.readString(output, StandardCharsets.ISO_8859_1).replace("\r", "") : "";
    }
}
