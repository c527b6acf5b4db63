package smbdirect.dist.etc;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;

/**
 * Web Console passwords in the hashed form the Felix Web Console (4.x and 5.x) accepts in the
 * {@code password} property of PID {@value #PID}:
 * {@code {sha-256}SALT-ITERATIONS-HASH}, where SALT is 16 hex digits, HASH the Base64 SHA-256 of
 * SALT followed by the password (UTF-8), hashed ITERATIONS times (the Web Console's own format,
 * class {@code org.apache.felix.webconsole.internal.servlet.Password}). Also recognises the
 * unsalted {@code {sha-256}HASH} form and plain text, which the Web Console accepts and hashes.
 *
 * <p>Stateless and thread-safe.
 */
public final class ConsolePassword {

    /** The Felix Web Console's configuration PID. */
    public static final String PID = "org.apache.felix.webconsole.internal.servlet.OsgiManager";
    /** The password the Web Console uses when none is configured. */
    static final String FELIX_DEFAULT = "admin";

    private static final String ALGORITHM = "SHA-256";
    private static final int ITERATIONS = 1000;
    private static final int SALT_BYTES = 8;
    /** No 0/O, 1/l/I: read off a terminal without doubt. */
    private static final char[] ALPHABET = "23456789abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ".toCharArray();
    private static final int GROUPS = 4;
    private static final int GROUP_LENGTH = 5;

    private final SecureRandom random;

    public ConsolePassword(SecureRandom random) {
        this.random = random;
    }

    /**
     * A new random password: four groups of five characters (about 117 bits), e.g.
     * {@code k7Hq2-9xVb4-TmPw3-c8RzN}.
     */
    public String generate() {
        StringBuilder b = new StringBuilder(GROUPS * (GROUP_LENGTH + 1));
        for (int g = 0; g < GROUPS; g++) {
            if (g > 0) {
                b.append('-');
            }
            for (int i = 0; i < GROUP_LENGTH; i++) {
                b.append(ALPHABET[random.nextInt(ALPHABET.length)]);
            }
        }
        return b.toString();
    }

    /** The hashed form of {@code password} with a new random salt. */
    public String hash(String password) {
        byte[] salt = new byte[SALT_BYTES];
        random.nextBytes(salt);
        return hash(password, HexFormat.of().formatHex(salt), ITERATIONS);
    }

    static String hash(String password, String salt, int iterations) {
        return "{" + ALGORITHM.toLowerCase() + "}" + salt + "-" + iterations + "-" + digest(salt + password, iterations);
    }

    /** Whether {@code stored} (hashed or plain) is a hash rather than plain text. */
    public static boolean isHashed(String stored) {
        return stored.startsWith("{") && stored.indexOf('}') > 1;
    }

    /**
     * Whether {@code stored}, hashed in any of the Web Console's forms or plain, is the password
     * {@code candidate}.
     */
    public static boolean matches(String stored, String candidate) {
        if (!isHashed(stored)) {
            return MessageDigest.isEqual(stored.getBytes(StandardCharsets.UTF_8),
                    candidate.getBytes(StandardCharsets.UTF_8));
        }
        int end = stored.indexOf('}');
        String algorithm = stored.substring(1, end);
        String rest = stored.substring(end + 1);
        String salt = "";
        int iterations = 1;
        int dash = rest.indexOf('-');
        if (dash >= 0) {
            salt = rest.substring(0, dash);
            int dash2 = rest.indexOf('-', dash + 1);
            if (dash2 >= 0) {
                try {
                    iterations = Integer.parseInt(rest.substring(dash + 1, dash2));
                    dash = dash2;
                } catch (NumberFormatException e) {
                    iterations = 1;
                }
            }
            rest = rest.substring(dash + 1);
        }
        String expected;
        try {
            expected = digest(salt + candidate, iterations, algorithm);
        } catch (IllegalStateException e) {
            return false;
        }
        return MessageDigest.isEqual(rest.getBytes(StandardCharsets.US_ASCII), expected.getBytes(StandardCharsets.US_ASCII));
    }

    /** Whether {@code stored} is missing or is the Felix default password ("admin") in any form. */
    public static boolean isDefault(Object stored) {
        return !(stored instanceof String s) || s.isBlank() || matches(s, FELIX_DEFAULT);
    }

    private static String digest(String text, int iterations) {
        return digest(text, iterations, ALGORITHM);
    }

    private static String digest(String text, int iterations, String algorithm) {
        try {
            MessageDigest md = MessageDigest.getInstance(algorithm);
            byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
            for (int i = 0; i < iterations; i++) {
                md.reset();
                bytes = md.digest(bytes);
            }
            return Base64.getEncoder().encodeToString(bytes);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("no " + algorithm + " in this JVM", e);
        }
    }
}
