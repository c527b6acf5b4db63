package smbdirect.dist.launch;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Properties;

/**
 * Lays out the runtime's home directory before the OSGi launcher starts, the way Karaf does:
 * {@code etc/} holds the configuration files (read and watched by Apache Felix FileInstall),
 * {@code data/} the framework state ({@code data/cache}: installed bundles, their data areas,
 * Config Admin's store).
 *
 * <p>The home is {@code -Dsmbdirect.home=DIR}, by default the directory the runtime is started
 * from. The executable jar names this class as its {@code Launcher-Agent-Class}, so the JVM runs
 * {@link #agentmain(String)} before the launcher's {@code main}: it creates the directories and
 * sets the system properties the launcher and FileInstall read ({@code launch.storage.dir},
 * {@code felix.fileinstall.dir}) unless they are set on the command line already, and
 * {@value #HOME} to the absolute home for the bundles.
 *
 * <p>A batch run ({@code java -jar smbdirect.jar perf ...}) reads {@code etc/} like the runtime
 * but keeps its framework state in a temporary directory of its own, deleted when the process
 * ends, creates neither {@code etc/} nor {@code data/} (in a home without {@code etc/} FileInstall
 * watches an empty directory of the run's), and opens no Web Console unless its port is given ({@code -Dorg.osgi.service.http.port},
 * to watch the run on the status page); {@value #BATCH} is set to the command. So several perf
 * processes run side by side in one home, and next to a running appliance, without sharing
 * {@code data/cache} or the console's port.
 *
 * <p>The runtime logs through Logback: {@value #LOGBACK_CONFIG} is {@code etc/logback.xml}, written
 * at the first start ({@link #logbackXml}), unless given on the command line. A batch run prints
 * only its own lines: its Logback configuration, in its temporary directory, logs to the console
 * only, and unless {@code -v} or {@code --verbose} is among its options (or {@value #LOG_LEVEL} is
 * given) errors only (Felix EventAdmin's own output at errors, and the JDK logging the framework's
 * extensions use at SEVERE until it is routed to SLF4J). {@code help},
 * {@code --help} and {@code -h} are batch runs of their own: the usage, nothing else.
 *
 * <p>Runs before any logging framework exists: a home that cannot be created ends the process with
 * one line on standard error and exit status 1.
 */
public final class ApplianceHome {

    /** System and framework property naming the home directory (absolute once prepared). */
    public static final String HOME = "smbdirect.home";
    /** The bnd launcher's framework storage property. */
    static final String STORAGE = "launch.storage.dir";
    /** FileInstall's watched directory. */
    static final String WATCHED = "felix.fileinstall.dir";
    /** System and framework property naming the batch command of this process ({@code perf}), absent when serving. */
    public static final String BATCH = "smbdirect.batch";
    /** Felix HTTP's switch for its HTTP connector. */
    static final String HTTP_ENABLE = "org.apache.felix.http.enable";
    /** The HTTP port; given on the command line, a batch run keeps its Web Console. */
    static final String HTTP_PORT = "org.osgi.service.http.port";
    /** The root level of the runtime's log ({@code INFO} unless given; {@code etc/logback.xml} reads it). */
    static final String LOG_LEVEL = "smbdirect.log.level";
    /** Logback's configuration file: {@code etc/logback.xml} of the home unless given. */
    static final String LOGBACK_CONFIG = "logback.configurationFile";
    /** The runtime's log file, relative to the home (rotated beside it, see {@link #LOGBACK_XML}). */
    public static final String LOG_FILE = "data/log/smbdirect.log";
    /** In {@code data/}: the bundles of the jar that last started on {@code data/cache}. */
    static final String CACHE_BUNDLES = "cache.bundles";
    /** The runtime's Logback configuration file in {@code etc/}. */
    public static final String LOGBACK_XML = "logback.xml";
    /** Felix EventAdmin's own log level (it prints warnings to standard output when the runtime stops). */
    static final String EVENT_ADMIN_LOG_LEVEL = "org.apache.felix.eventadmin.LogLevel";
    /**
     * The Felix Web Console's password while its configuration holds none: from the moment the Web
     * Console registers its servlet until Config Admin hands it the password kept in {@code etc/}
     * (a few milliseconds at every start), and should the configuration lose its password. Felix's
     * own default is {@code admin}, which answered in that moment (seen in 3 of 4 starts).
     */
    static final String CONSOLE_DEFAULT_PASSWORD = "felix.webconsole.password";
    /**
     * The loggers whose start-up chatter (Jetty, Felix HTTP, SPI Fly's registrations, the Health Check
     * executor's thread pool and missing Quartz, the Web Console's optional printers) is kept to
     * warnings.
     */
    static final List<String> LEVELLED_LOGGERS = List.of("org.eclipse.jetty", "org.apache.felix.http",
            "org.apache.aries.spifly", "org.apache.felix.hc.core", "org.apache.felix.webconsole");

    private ApplianceHome() {
    }

    /** Entry point of {@code Launcher-Agent-Class}: runs before the launcher's main method. */
    public static void agentmain(String args) {
        List<String> jvmArguments = ProcessHandle.current().info().arguments().map(Arrays::asList).orElse(null);
        if (relaunchNeeded(Runtime.version().feature(), jvmArguments, System.getProperties(),
                System.getenv("JDK_JAVA_OPTIONS"))) {
            System.exit(relaunch(jvmArguments));
        }
        watchLauncher(System.getProperty(RELAUNCHED));
        try {
            prepare(System.getProperties(), commandArguments());
            // the JDK logging of the framework's extensions (SPI Fly's "Registered provider" lines) until
            // smbdirect.dist routes it to SLF4J, whose levels then apply (etc/logback.xml)
            if (System.getProperty("java.util.logging.config.file") == null) {
                java.util.logging.Logger.getLogger("").setLevel(System.getProperty(LOG_LEVEL, "").equalsIgnoreCase("error")
                        ? java.util.logging.Level.SEVERE : java.util.logging.Level.WARNING);
            }
        } catch (IOException | InvalidPathException e) {
            System.err.println("smbdirect: cannot prepare the home directory: " + e.getMessage());
            System.exit(1);
        }
    }

    /** The JVM option that lets the Felix framework call {@code sun.misc.Unsafe} without the JVM's warning. */
    static final String UNSAFE_OPTION = "--sun-misc-unsafe-memory-access";
    /** System property of a relaunched JVM: the process id of the JVM that started it. */
    static final String RELAUNCHED = "smbdirect.relaunchedBy";
    /** System property: {@code false} keeps a JDK 24+ JVM started without {@link #UNSAFE_OPTION} as it is. */
    static final String RELAUNCH = "smbdirect.relaunch";

    /**
     * Whether this JVM starts the runtime in a second JVM with {@code --sun-misc-unsafe-memory-access=allow}:
     * on JDK 24 and later (JEP 498) the JVM itself prints four {@code WARNING:} lines when the Felix
     * framework (7.0.5, the newest) calls {@code sun.misc.Unsafe} in its static initialiser, before
     * any framework property is read, and only that JVM option (which JDK 17 refuses, and a jar's
     * manifest cannot carry) keeps it quiet. Not when the option (or {@code JDK_JAVA_OPTIONS} with it)
     * is given, when this JVM was relaunched already, when {@value #RELAUNCH} is {@code false}, or when
     * the command line is not known ({@code jvmArguments} null).
     */
    static boolean relaunchNeeded(int javaFeature, List<String> jvmArguments, Properties system, String jdkJavaOptions) {
        if (javaFeature < 24 || jvmArguments == null || system.getProperty(RELAUNCHED) != null
                || "false".equalsIgnoreCase(system.getProperty(RELAUNCH))) {
            return false;
        }
        if (jdkJavaOptions != null && jdkJavaOptions.contains(UNSAFE_OPTION)) {
            return false;
        }
        return jvmArguments.stream().noneMatch(a -> a.startsWith(UNSAFE_OPTION));
    }

    /**
     * The command of the relaunched JVM: this JVM's executable and arguments (options, {@code -jar},
     * the program's arguments, as given), with {@code --sun-misc-unsafe-memory-access=allow} and
     * {@value #RELAUNCHED} first.
     */
    static List<String> relaunchCommand(String java, List<String> jvmArguments, long pid) {
        List<String> command = new java.util.ArrayList<>();
        command.add(java);
        command.add(UNSAFE_OPTION + "=allow");
        command.add("-D" + RELAUNCHED + "=" + pid);
        command.addAll(jvmArguments);
        return command;
    }

    /**
     * Runs the runtime in a second JVM ({@link #relaunchCommand}) that shares this one's standard
     * input, output and error, working directory and environment, and returns its exit status. This
     * JVM loads nothing else and waits: a SIGTERM or SIGINT to it (a service manager, Ctrl-C) is
     * passed on as SIGTERM, and this JVM ends with the runtime's status once the runtime has stopped
     * (60 s at most, then it is killed); the relaunched JVM stops itself when this one is gone
     * ({@link #watchLauncher}), killed or not.
     */
    static int relaunch(List<String> jvmArguments) {
        String executable = ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"),
                "bin", "java").toString());
        Process runtime;
        try {
            runtime = new ProcessBuilder(relaunchCommand(executable, jvmArguments, ProcessHandle.current().pid()))
                    .inheritIO().start();
        } catch (IOException e) {
            System.err.println("smbdirect: cannot start the runtime's JVM with " + UNSAFE_OPTION + "=allow: "
                    + e.getMessage());
            return 1;
        }
        java.util.concurrent.atomic.AtomicBoolean ended = new java.util.concurrent.atomic.AtomicBoolean();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (ended.get()) {
                return;
            }
            runtime.destroy(); // SIGTERM: the runtime stops in order
            try {
                if (!runtime.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)) {
                    runtime.destroyForcibly().waitFor();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            Runtime.getRuntime().halt(runtime.isAlive() ? 1 : runtime.exitValue());
        }, "smbdirect-relaunch"));
        while (true) {
            try {
                int status = runtime.waitFor();
                ended.set(true);
                return status;
            } catch (InterruptedException e) {
                // the main thread is not interrupted by signals; keep waiting
            }
        }
    }

    /**
     * In a relaunched JVM ({@code launcher}: the pid of the JVM that started it, or null): stops this
     * JVM in order (it raises SIGTERM in itself) when that JVM is gone without having stopped it, so
     * that a killed launcher leaves no runtime behind.
     */
    static void watchLauncher(String launcher) {
        if (launcher == null) {
            return;
        }
        try {
            ProcessHandle.of(Long.parseLong(launcher.trim())).ifPresentOrElse(
                    p -> p.onExit().thenRun(ApplianceHome::stopAsIfSignalled), ApplianceHome::stopAsIfSignalled);
        } catch (NumberFormatException e) {
            // not ours
        }
    }

    /**
     * Raises SIGTERM in this JVM, so that the runtime stops as a service manager's stop makes it
     * ({@code sun.misc.Signal}, the handler the runtime installed); where that cannot be done, exits.
     */
    private static void stopAsIfSignalled() {
        try {
            Class<?> signal = Class.forName("sun.misc.Signal");
            signal.getMethod("raise", signal).invoke(null, signal.getConstructor(String.class).newInstance("TERM"));
        } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
            System.exit(0);
        }
    }

    /**
     * Resolves the home against {@code user.dir}, creates {@code etc/} and {@code data/} (a batch run
     * only when it keeps its Web Console), and sets
     * {@value #HOME}, {@value #STORAGE} and {@value #WATCHED} in {@code system} (the latter two only
     * when absent).
     *
     * @return the absolute home
     */
    static Path prepare(Properties system) throws IOException {
        return prepare(system, List.of());
    }

    /**
     * As {@link #prepare(Properties)}; when {@code arguments} (the program's arguments) start with
     * {@code perf} (or ask for help), also sets {@value #BATCH}, a temporary {@value #STORAGE}
     * (unless given; deleted at exit), switches the Web Console's HTTP connector off (unless
     * {@value #HTTP_ENABLE} or {@value #HTTP_PORT} is given) and, without {@code -v} or
     * {@code --verbose}, the runtime's log to errors only (unless {@value #LOG_LEVEL} is given).
     *
     * @return the absolute home
     */
    static Path prepare(Properties system, List<String> arguments) throws IOException {
        Path cwd = Path.of(system.getProperty("user.dir", "."));
        String configured = system.getProperty(HOME);
        Path home = (configured == null || configured.isBlank() ? cwd : cwd.resolve(configured.trim()))
                .toAbsolutePath().normalize();
        Path etc = home.resolve("etc");
        Path data = home.resolve("data");
        system.setProperty(HOME, home.toString());
        String command = arguments.isEmpty() ? "" : arguments.get(0);
        boolean help = command.equals("help") || command.equals("-h") || command.equals("--help");
        boolean batch = command.equals("perf") || help;
        boolean console = system.getProperty(HTTP_PORT) != null
                || (system.getProperty(HTTP_ENABLE) != null && !"false".equalsIgnoreCase(system.getProperty(HTTP_ENABLE)));
        if (!batch || console) {
            // serving, or a batch run with its Web Console (whose password is kept in etc/ and data/)
            Files.createDirectories(etc);
            Files.createDirectories(data);
        }
        if (batch) {
            system.setProperty(BATCH, help ? "help" : "perf");
            boolean verbose = arguments.contains("-v") || arguments.contains("--verbose");
            if (!verbose && system.getProperty(LOG_LEVEL) == null) {
                system.setProperty(LOG_LEVEL, "error");
                if (system.getProperty(EVENT_ADMIN_LOG_LEVEL) == null) {
                    system.setProperty(EVENT_ADMIN_LOG_LEVEL, "1"); // errors only
                }
            }
            // a home without etc/ gets none: FileInstall, which creates the directory it watches, watches
            // an empty one of this run's
            boolean noEtc = system.getProperty(WATCHED) == null && !Files.isDirectory(etc);
            Path scratch = null;
            if (system.getProperty(STORAGE) == null || system.getProperty(LOGBACK_CONFIG) == null || noEtc) {
                Path dir = Files.createTempDirectory("smbdirect-perf-");
                Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteQuietly(dir), "smbdirect-perf-cleanup"));
                scratch = dir;
            }
            if (system.getProperty(STORAGE) == null) {
                system.setProperty(STORAGE, scratch.resolve("cache").toString());
            }
            if (system.getProperty(LOGBACK_CONFIG) == null) {
                // a batch run logs to the console only: nothing written under the home
                Path config = scratch.resolve("logback.xml");
                Files.writeString(config, logbackXml(false, system.getProperty(LOG_LEVEL, "info")));
                system.setProperty(LOGBACK_CONFIG, config.toString());
            }
            if (noEtc) {
                system.setProperty(WATCHED, Files.createDirectories(scratch.resolve("etc")).toString());
            }
            if (system.getProperty(HTTP_ENABLE) == null && system.getProperty(HTTP_PORT) == null) {
                system.setProperty(HTTP_ENABLE, "false");
            }
        }
        if (system.getProperty(STORAGE) == null) {
            if (resetCacheOfAnotherJar(data, launchedBundles())) {
                System.err.println("smbdirect: this jar's bundles differ from those data/cache was made with: the framework"
                        + " state starts afresh (the configuration stays in etc/)");
            }
            system.setProperty(STORAGE, data.resolve("cache").toString());
        }
        if (system.getProperty(LOGBACK_CONFIG) == null) {
            Path config = etc.resolve(LOGBACK_XML);
            if (!Files.exists(config)) {
                Files.writeString(config, logbackXml(true, null));
            }
            system.setProperty(LOGBACK_CONFIG, config.toString());
        }
        if (system.getProperty(WATCHED) == null) {
            system.setProperty(WATCHED, etc.toString());
        }
        if (system.getProperty(CONSOLE_DEFAULT_PASSWORD) == null) {
            system.setProperty(CONSOLE_DEFAULT_PASSWORD, passwordNoOneKnows(new SecureRandom()));
        }
        return home;
    }

    /**
     * A Web Console password hash ({@code {sha-256}} and 32 bytes in Base64, the Web Console's own
     * form) made of random bytes: no password hashes to it, so no one logs in with it.
     */
    static String passwordNoOneKnows(SecureRandom random) {
        byte[] hash = new byte[32];
        random.nextBytes(hash);
        return "{sha-256}" + Base64.getEncoder().encodeToString(hash);
    }

    /**
     * The runtime's Logback configuration: one line format on the console (standard error, where a
     * service manager collects it) and, when {@code file}, in {@value #LOG_FILE} under the home,
     * rotated daily and at 10 MB (compressed, 14 days and 200 MB kept). The root level is
     * {@value #LOG_LEVEL} (default INFO); the start-up chatter of {@link #LEVELLED_LOGGERS} is kept to
     * warnings; the JDK logging routed to SLF4J follows these levels. Written as
     * {@code etc/logback.xml} at the first start (the operator edits it; Logback re-reads it within
     * 30 s); a batch run uses it with {@code file} false and {@code level} its own.
     */
    static String logbackXml(boolean file, String level) {
        String root = level == null ? "${" + LOG_LEVEL + ":-INFO}" : level.toUpperCase(java.util.Locale.ROOT);
        String chatter = root.equals("ERROR") || root.equals("OFF") ? root : "WARN";
        StringBuilder b = new StringBuilder();
        b.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        if (file) {
            b.append("<!-- The appliance's log (Logback 1.5, https://logback.qos.ch/manual/configuration.html), written at\n")
                    .append("     the first start; edits are applied within 30 s. ${smbdirect.home} is the home directory;\n")
                    .append("     -D" + LOG_LEVEL + "=DEBUG on the command line changes the root level. -->\n");
        }
        b.append("<configuration").append(file ? " scan=\"true\" scanPeriod=\"30 seconds\"" : "").append(">\n");
        b.append("  <!-- the JDK logging routed to SLF4J follows the levels below -->\n");
        b.append("  <contextListener class=\"ch.qos.logback.classic.jul.LevelChangePropagator\">"
                + "<resetJUL>true</resetJUL></contextListener>\n");
        b.append("  <property name=\"PATTERN\" value=\"%d{yyyy-MM-dd HH:mm:ss.SSS} %-5level [%thread] %logger - %msg%n\"/>\n");
        b.append("  <appender name=\"CONSOLE\" class=\"ch.qos.logback.core.ConsoleAppender\">\n")
                .append("    <target>System.err</target>\n")
                .append("    <encoder><pattern>${PATTERN}</pattern></encoder>\n")
                .append("  </appender>\n");
        if (file) {
            b.append("  <appender name=\"FILE\" class=\"ch.qos.logback.core.rolling.RollingFileAppender\">\n")
                    .append("    <file>${smbdirect.home}/" + LOG_FILE + "</file>\n")
                    .append("    <rollingPolicy class=\"ch.qos.logback.core.rolling.SizeAndTimeBasedRollingPolicy\">\n")
                    .append("      <fileNamePattern>${smbdirect.home}/data/log/smbdirect.%d{yyyy-MM-dd}.%i.log.gz</fileNamePattern>\n")
                    .append("      <maxFileSize>10MB</maxFileSize>\n")
                    .append("      <maxHistory>14</maxHistory>\n")
                    .append("      <totalSizeCap>200MB</totalSizeCap>\n")
                    .append("    </rollingPolicy>\n")
                    .append("    <encoder><pattern>${PATTERN}</pattern></encoder>\n")
                    .append("  </appender>\n");
        }
        b.append("  <!-- start-up chatter: Jetty, Felix HTTP, SPI Fly, the Health Check executor, the Web Console -->\n");
        for (String logger : LEVELLED_LOGGERS) {
            b.append("  <logger name=\"").append(logger).append("\" level=\"").append(chatter).append("\"/>\n");
        }
        b.append("  <root level=\"").append(root).append("\">\n");
        b.append("    <appender-ref ref=\"CONSOLE\"/>\n");
        if (file) {
            b.append("    <appender-ref ref=\"FILE\"/>\n");
        }
        b.append("  </root>\n</configuration>\n");
        return b.toString();
    }

    /**
     * The program's arguments (after {@code -jar JAR}), read from the process's command line: a
     * {@code Launcher-Agent-Class} runs before {@code main} and is not given them. Empty when the
     * command line is not known.
     */
    static List<String> commandArguments() {
        List<String> all = ProcessHandle.current().info().arguments().map(Arrays::asList).orElse(null);
        if (all == null) {
            String command = System.getProperty("sun.java.command", "").trim();
            List<String> words = command.isEmpty() ? List.of() : Arrays.asList(command.split("\\s+"));
            return words.size() <= 1 ? List.of() : words.subList(1, words.size());
        }
        return programArguments(all);
    }

    /** The arguments after {@code -jar JAR} of a JVM's argument list; empty without {@code -jar}. */
    static List<String> programArguments(List<String> jvmArguments) {
        int jar = jvmArguments.indexOf("-jar");
        return jar < 0 || jar + 2 > jvmArguments.size() ? List.of()
                : List.copyOf(jvmArguments.subList(jar + 2, jvmArguments.size()));
    }

    /**
     * Starts the framework state {@code data/cache} afresh when the jar's bundles ({@code bundles},
     * the launcher's {@code launch.bundles}: their file names carry their versions) differ from those
     * of the jar that last started on it, recorded in {@code data/}{@value #CACHE_BUNDLES}: the
     * launcher keeps the installed bundles it no longer lists, so after another version of the jar
     * replaced this one the old bundles would run beside the new ones. Nothing happens without
     * {@code bundles} (not started from the jar).
     *
     * @return whether {@code data/cache} was removed
     */
    static boolean resetCacheOfAnotherJar(Path data, String bundles) throws IOException {
        if (bundles == null) {
            return false;
        }
        Path cache = data.resolve("cache");
        Path stamp = data.resolve(CACHE_BUNDLES);
        boolean reset = Files.isDirectory(cache)
                && !(Files.isRegularFile(stamp) && Files.readString(stamp).equals(bundles));
        if (reset) {
            deleteQuietly(cache);
        }
        Files.writeString(stamp, bundles);
        return reset;
    }

    /** The launcher's {@code launch.bundles} of the jar this class is in, or null outside it. */
    private static String launchedBundles() {
        try (java.io.InputStream in = ApplianceHome.class.getClassLoader().getResourceAsStream("launcher.properties")) {
            if (in == null) {
                return null;
            }
            Properties launcher = new Properties();
            launcher.load(in);
            return launcher.getProperty("launch.bundles");
        } catch (IOException e) {
            return null;
        }
    }

    /** Deletes {@code dir} and its content (no nested classes: only this class is on the system class path). */
    private static void deleteQuietly(Path dir) {
        try (java.util.stream.Stream<Path> all = Files.walk(dir)) {
            all.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | RuntimeException e) {
            // a temporary directory left behind is harmless; nothing to log to this early
        }
    }
}
