package smbdirect.dist.etc;

import java.util.Optional;

/**
 * The Web Console user, the file holding its password hash and, when a password was generated at
 * this start, the file (readable by its owner only) that holds it in plain text: registered as a
 * service by {@link EtcBootstrap} so that the banner can say where the password is without
 * printing it. Immutable and thread-safe.
 */
public final class ConsoleCredentials {

    private final String user;
    private final String file;
    private final String generatedFile;
    private final boolean generatedNow;
    private final String refused;

    ConsoleCredentials(String user, String file, String generatedFile, boolean generatedNow) {
        this(user, file, generatedFile, generatedNow, null);
    }

    ConsoleCredentials(String user, String file, String generatedFile, boolean generatedNow, String refused) {
        this.user = user;
        this.file = file;
        this.generatedFile = generatedFile;
        this.generatedNow = generatedNow;
        this.refused = refused;
    }

    /** The Web Console user name. */
    public String user() {
        return user;
    }

    /** The file holding the password hash, relative to the home. */
    public String file() {
        return file;
    }

    /**
     * The file, relative to the home, that holds the generated password in force (mode 600); empty
     * when the password in force was configured.
     */
    public Optional<String> generatedFile() {
        return Optional.ofNullable(generatedFile);
    }

    /** Whether the password was generated at this start (a first start). */
    public boolean generatedNow() {
        return generatedNow;
    }

    /**
     * What was refused in the file at this start, in one line (the file, {@code password = (hidden)
     * refused}, the reason, the last good password put back); empty when nothing was.
     */
    public Optional<String> refused() {
        return Optional.ofNullable(refused);
    }
}
