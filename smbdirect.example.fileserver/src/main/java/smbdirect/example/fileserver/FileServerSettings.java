package smbdirect.example.fileserver;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Objects;

/**
 * What one file server serves and to whom: one directory as one share, on one listen address.
 *
 * @param shareName the share's name as clients give it in a tree connect ({@code \\server\NAME}),
 *     compared without regard to case
 * @param directory the directory served; every path a client names stays inside it
 * @param listenAddress where the server listens for SMB Direct connections (5445 for iWARP clients,
 *     445 for InfiniBand and RoCE clients)
 * @param readOnly whether clients may only read
 * @param user the one account's user name, or {@code null} for none (then only guests)
 * @param password the account's password, or {@code null} when there is no account
 * @param guest whether a client may log on as guest (no account, or an unknown user)
 */
public record FileServerSettings(String shareName, Path directory, InetSocketAddress listenAddress,
        boolean readOnly, String user, String password, boolean guest) {

    public FileServerSettings {
        Objects.requireNonNull(shareName, "shareName");
        Objects.requireNonNull(directory, "directory");
        Objects.requireNonNull(listenAddress, "listenAddress");
        if (shareName.isEmpty() || shareName.length() > 80 || shareName.chars().anyMatch(c -> c < 0x20 || "\\/:*?\"<>|".indexOf(c) >= 0)) {
            throw new IllegalArgumentException("shareName '" + shareName + "': 1 to 80 characters, none of \\ / : * ? \" < > | or control characters");
        }
        if ((user == null) != (password == null)) {
            throw new IllegalArgumentException("user and password: give both or neither");
        }
        if (user != null && user.isEmpty()) {
            throw new IllegalArgumentException("user: empty (leave user and password out for guest only)");
        }
        if (user == null && !guest) {
            throw new IllegalArgumentException("no account and guest off: nobody could log on");
        }
    }

    /** The password is never printed. */
    @Override
    public String toString() {
        return "FileServerSettings[share=" + shareName + ", directory=" + directory + ", listen=" + listenAddress
                + ", readOnly=" + readOnly + ", user=" + user + ", guest=" + guest + "]";
    }
}
