package smbdirect.dist;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.felix.utils.json.JSONParser;

import smbdirect.dist.etc.ConfigurationFile;
import smbdirect.testsupport.Judges;

/** The exported runtime jar started as a child process, its output captured to a file. */
final class RuntimeProcess implements AutoCloseable {

    private static final Pattern GENERATED = Pattern.compile(
            "Credentials: +user admin, password generated at this first start in (\\S+) \\(readable by this user only");

    final Process process;
    final Path output;
    final int httpPort;
    private final Path workDir;
    private final List<String> jvmArgs;

    private RuntimeProcess(Process process, Path output, int httpPort, Path workDir, List<String> jvmArgs) {
        this.process = process;
        this.output = output;
        this.httpPort = httpPort;
        this.workDir = workDir;
        this.jvmArgs = jvmArgs;
    }

    /** The runtime's home: -Dsmbdirect.home when given, else the directory it was started in. */
    Path home() {
        for (String a : jvmArgs) {
            if (a.startsWith("-Dsmbdirect.home=")) {
                return workDir.resolve(a.substring("-Dsmbdirect.home=".length()));
            }
        }
        return workDir;
    }

    static Path jar() {
        Path jar = Path.of(System.getProperty("smbdirect.jar", "target/smbdirect.jar"));
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("the exported runtime " + jar.toAbsolutePath() + " is missing");
        }
        return jar;
    }

    /** Starts the jar with stdin from /dev/null (no terminal), the Web Console on a free port. */
    static RuntimeProcess start(Path workDir, String... args) throws IOException {
        return start(workDir, List.of(), args);
    }

    /**
     * Starts the jar in {@code workDir} (its home unless {@code jvmArgs} set -Dsmbdirect.home) with
     * stdin from /dev/null (no terminal), the Web Console on a free port, output to a new log file there.
     */
    static RuntimeProcess start(Path workDir, List<String> jvmArgs, String... args) throws IOException {
        return start(workDir, true, jvmArgs, args);
    }

    /** Starts the jar exactly as {@code java -jar smbdirect.jar ARGS} (no Web Console port given). */
    static RuntimeProcess startAsWritten(Path workDir, String... args) throws IOException {
        return start(workDir, false, List.of(), args);
    }

    private static RuntimeProcess start(Path workDir, boolean consolePort, List<String> jvmArgs, String... args)
            throws IOException {
        return start(Path.of(System.getProperty("java.home")), workDir, consolePort, jvmArgs, args);
    }

    /** Starts the jar on the JDK at {@code javaHome}, otherwise as {@link #start(Path, List, String...)}. */
    static RuntimeProcess startOn(Path javaHome, Path workDir, String... args) throws IOException {
        return start(javaHome, workDir, true, List.of(), args);
    }

    /** Starts the jar on the JDK at {@code javaHome} with {@code jvmArgs}, otherwise as {@link #start(Path, List, String...)}. */
    static RuntimeProcess startOn(Path javaHome, Path workDir, List<String> jvmArgs, String... args) throws IOException {
        return start(javaHome, workDir, true, jvmArgs, args);
    }

    /**
     * Starts the jar with its standard input closed (file descriptor 0 not open at all), as some
     * service managers run it; otherwise as {@link #start(Path, String...)}.
     */
    static RuntimeProcess startWithInputClosed(Path workDir) throws IOException {
        return start(Path.of(System.getProperty("java.home")), workDir, true, List.of(), true);
    }

    private static RuntimeProcess start(Path javaHome, Path workDir, boolean consolePort, List<String> jvmArgs,
            String... args) throws IOException {
        return start(javaHome, workDir, consolePort, jvmArgs, false, args);
    }

    private static RuntimeProcess start(Path javaHome, Path workDir, boolean consolePort, List<String> jvmArgs,
            boolean inputClosed, String... args) throws IOException {
        int port = consolePort ? freePort() : 8080;
        List<String> command = new ArrayList<>();
        command.add(javaHome.resolve("bin").resolve("java").toString());
        if (consolePort) {
            command.add("-Dorg.osgi.service.http.port=" + port);
        }
        command.addAll(jvmArgs);
        command.add("-jar");
        command.add(jar().toAbsolutePath().toString());
        command.addAll(List.of(args));
        if (inputClosed) {
            // exec: the shell becomes the JVM (same pid, so SIGTERM reaches it); 0<&- closes its input
            StringBuilder line = new StringBuilder("exec");
            for (String c : command) {
                line.append(" '").append(c.replace("'", "'\\''")).append('\'');
            }
            command = new ArrayList<>(List.of("/bin/sh", "-c", line.append(" 0<&-").toString()));
        }
        Files.createDirectories(workDir);
        Path out = Files.createTempFile(workDir, "runtime-", ".log");
        Process p = new ProcessBuilder(command).directory(workDir.toFile()).redirectErrorStream(true)
                .redirectOutput(out.toFile()).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .start();
        return new RuntimeProcess(p, out, port, workDir, List.copyOf(jvmArgs));
    }

    /**
     * The runtime started on a terminal the way a person starts it: {@code java -jar} in
     * {@code workDir} under a pseudo-terminal from util-linux {@code script}, with a free HTTP port;
     * what the terminal shows is written to {@code terminal} (read it with {@link #terminalText}).
     */
    static Process startOnTerminal(Path workDir, Path terminal) throws IOException {
        Path script = Judges.tool("script", "apt-get install bsdutils");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String command = java + " -Dorg.osgi.service.http.port=" + freePort() + " -jar " + jar().toAbsolutePath();
        return new ProcessBuilder(List.of(script.toString(), "-qfec", command, "/dev/null"))
                .directory(workDir.toFile()).redirectErrorStream(true).redirectOutput(terminal.toFile()).start();
    }

    /** What the terminal written by {@link #startOnTerminal} has shown so far, without carriage returns. */
    static String terminalText(Path terminal) throws IOException {
        return Files.exists(terminal) ? Files.readString(terminal, StandardCharsets.ISO_8859_1).replace("\r", "") : "";
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /**
     * The Web Console password generated at the first start of this home, read from the file the
     * banner names (as an operator does), which only its owner may read.
     */
    String generatedPassword() throws IOException, InterruptedException {
        // the banner's lines may reach the output file after its first line: wait (bounded) for the credentials
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            Matcher m = GENERATED.matcher(output());
            if (m.find()) {
                Path file = home().resolve(m.group(1));
                java.util.Set<java.nio.file.attribute.PosixFilePermission> mode = Files.getPosixFilePermissions(file);
                if (!mode.equals(java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"))) {
                    throw new AssertionError(file + " is readable by others: " + mode);
                }
                for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                    if (!line.isBlank() && !line.startsWith("#")) {
                        if (output().contains(line.trim())) {
                            throw new AssertionError("the password is in the runtime's output:\n" + output());
                        }
                        return line.trim();
                    }
                }
                throw new AssertionError(file + " holds no password");
            }
            if (System.nanoTime() - deadline > 0 || !process.isAlive()) {
                throw new AssertionError("the banner shows no generated Web Console password:\n" + output());
            }
            TimeUnit.MILLISECONDS.sleep(50);
        }
    }

    String output() throws IOException {
        return Files.readString(output, StandardCharsets.UTF_8);
    }

    /**
     * Waits until the runtime printed its whole start banner ("SMB Direct runtime is up." and the
     * lines after it, the last saying how to stop it, without a terminal): its lines reach the output one by one, and
     * a test that read it at the first line could miss the credentials or the listeners.
     */
    void awaitUp(Duration timeout) throws IOException, InterruptedException {
        awaitOutput("SMB Direct runtime is up.", timeout);
        awaitOutput("\n  Stop:         ", Duration.ofSeconds(10));
    }

    /** Waits until the output contains {@code text}; fails with the output when it does not. */
    void awaitOutput(String text, Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (output().contains(text)) {
                return;
            }
            if (!process.isAlive()) {
                throw new AssertionError("runtime exited with " + process.exitValue() + " before printing '" + text
                        + "':\n" + output());
            }
            TimeUnit.MILLISECONDS.sleep(100);
        }
        throw new AssertionError("runtime did not print '" + text + "' within " + timeout + ":\n" + output());
    }

    /** The base URL of the Web Console ({@code http://127.0.0.1:PORT/system/console}). */
    String console() {
        return "http://127.0.0.1:" + httpPort + "/system/console";
    }

    /** GETs {@code path} of the Web Console as admin with {@code password}; returns status and body. */
    HttpResponse<String> get(String path, String password) throws IOException, InterruptedException {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(console() + path))
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString(("admin:" + password)
                        .getBytes(StandardCharsets.UTF_8))).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** POSTs the form {@code form} (already URL-encoded) to {@code path} of the Web Console as admin. */
    HttpResponse<String> post(String path, String password, String form) throws IOException, InterruptedException {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(console() + path))
                .header("Authorization", "Basic " + Base64.getEncoder().encodeToString(("admin:" + password)
                        .getBytes(StandardCharsets.UTF_8)))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The status page's JSON (smbdirect.json), parsed. */
    Map<String, Object> json(String password, String query) throws IOException, InterruptedException {
        HttpResponse<String> r = get("/smbdirect.json" + (query == null ? "" : "?" + query), password);
        if (r.statusCode() != 200) {
            throw new AssertionError("smbdirect.json answered " + r.statusCode() + ": " + r.body());
        }
        return new JSONParser(r.body()).getParsed();
    }

    /** The settings in force in smbdirect.json ({@code transport.settings}). */
    @SuppressWarnings("unchecked")
    static Map<String, Object> settings(Map<String, Object> json) {
        return (Map<String, Object>) ((Map<String, Object>) json.get("transport")).get("settings");
    }

    /** Waits (bounded) until smbdirect.json satisfies {@code condition}; fails naming {@code what}. */
    void awaitJson(String password, java.util.function.Predicate<Map<String, Object>> condition, String what)
            throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        Map<String, Object> json = Map.of();
        while (System.nanoTime() < deadline) {
            json = json(password, null);
            if (condition.test(json)) {
                return;
            }
            TimeUnit.MILLISECONDS.sleep(200);
        }
        throw new AssertionError(what + " never seen in smbdirect.json: " + json + "\n" + output());
    }

    /**
     * Waits (bounded) until the Web Console takes {@code password} (200) and refuses {@code old} (401).
     * A change of its password reaches etc/ and the Web Console on two threads: the console re-registers
     * its servlet and security with the new password a moment before or after the file is written, and
     * between the two registrations answers 404 or 403; those, and the old password's 200, are waited out.
     */
    void awaitConsolePassword(String password, String old) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        int taken = 0;
        int refused = 0;
        while (System.nanoTime() < deadline) {
            taken = get("/smbdirect", password).statusCode();
            refused = get("/smbdirect", old).statusCode();
            if (taken == 200 && refused == 401) {
                return;
            }
            TimeUnit.MILLISECONDS.sleep(100);
        }
        throw new AssertionError("the new Web Console password answered " + taken + ", the old one " + refused
                + " (200 and 401 expected)\n" + output());
    }

    /** Process id (for the attach API). */
    long pid() {
        return process.pid();
    }

    /** Sends SIGTERM and returns the exit status. */
    int terminate(Duration timeout) throws InterruptedException {
        process.destroy();
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly().waitFor();
            throw new AssertionError("runtime did not stop within " + timeout + " after SIGTERM");
        }
        return process.exitValue();
    }

    /**
     * Posts what the Web Console's configuration dialog of {@code pid} posts on Save: every property
     * of the configuration (as its file under the home's {@code etc/} holds them), with
     * {@code changes}. (The Web Console drops the properties a form does not list.) Asserts the
     * console took the form.
     */
    void postConfiguration(String password, String pid, Map<String, String> changes)
            throws IOException, InterruptedException {
        HttpResponse<String> answer = postForm(password, pid, changes);
        if (answer.statusCode() != 200 && answer.statusCode() != 302) {
            throw new AssertionError("the Web Console answered the form of " + pid + " with " + answer.statusCode()
                    + ": " + unescaped(answer.body()));
        }
    }

    /** Posts the form {@link #postConfiguration} posts; returns the Web Console's answer, whatever it is. */
    HttpResponse<String> postForm(String password, String pid, Map<String, String> changes)
            throws IOException, InterruptedException {
        Map<String, Object> properties = new LinkedHashMap<>(ConfigurationFile.read(home().resolve("etc").resolve(pid + ".cfg")));
        StringBuilder form = new StringBuilder("apply=true&action=ajaxConfigManager&propertylist=")
                .append(encode(String.join(",", properties.keySet())));
        for (Map.Entry<String, Object> p : properties.entrySet()) {
            Object v = changes.containsKey(p.getKey()) ? changes.get(p.getKey()) : p.getValue();
            for (Object one : v instanceof Object[] many ? List.of(many) : List.of(v)) {
                form.append('&').append(encode(p.getKey())).append('=').append(encode(String.valueOf(one)));
            }
        }
        return post("/configMgr/" + pid, password, form.toString());
    }

    /**
     * {@code html} with the entities an error page escapes ({@code &amp;amp; &amp;lt; &amp;gt; &amp;quot; &amp;#39;})
     * unescaped: the Web Console's 400 answer carries its message in the container's error page.
     */
    static String unescaped(String html) {
        return html.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&#39;", "'")
                .replace("&apos;", "'").replace("&amp;", "&");
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    /**
     * Waits (30 s at most) until {@code file} under {@code home} (a runtime's, running or not)
     * satisfies {@code condition}; returns its text ("" while there is no such file).
     */
    static String awaitFile(Path home, Path file, Predicate<String> condition, String what)
            throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        String text = "";
        while (System.nanoTime() < deadline) {
            Path f = home.resolve(file);
            text = Files.exists(f) ? Files.readString(f, StandardCharsets.ISO_8859_1) : "";
            if (condition.test(text)) {
                return text;
            }
            TimeUnit.MILLISECONDS.sleep(100);
        }
        throw new AssertionError(what + " never in " + file + ":\n" + text);
    }

    /** The values of a configuration file's text, read as the runtime reads its files under etc/. */
    static Map<String, Object> parseConfiguration(String cfg) {
        try {
            Path tmp = Files.createTempFile("cfg", ".cfg");
            try {
                Files.writeString(tmp, cfg, StandardCharsets.ISO_8859_1);
                return ConfigurationFile.read(tmp);
            } finally {
                Files.delete(tmp);
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }
}
