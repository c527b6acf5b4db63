package smbdirect.dist.etc;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The Web Console user and, once, the password generated at this start: registered as a service
 * by {@link EtcBootstrap} so that the banner can print the password a single time. Thread-safe.
 */
public final class ConsoleCredentials {

    private final String user;
    private final String file;
    private final AtomicReference<String> generated;

    ConsoleCredentials(String user, String file, String generated) {
        this.user = user;
        this.file = file;
        this.generated = new AtomicReference<>(generated);
    }

    /** The Web Console user name. */
    public String user() {
        return user;
    }

    /** The file holding the password hash, relative to the home. */
    public String file() {
        return file;
    }

    /** The password generated at this start, the first time this is called; then empty. */
    public Optional<String> takeGenerated() {
        return Optional.ofNullable(generated.getAndSet(null));
    }
}
