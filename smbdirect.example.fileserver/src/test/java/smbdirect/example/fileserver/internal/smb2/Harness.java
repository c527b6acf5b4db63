package smbdirect.example.fileserver.internal.smb2;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

import smbdirect.example.fileserver.internal.share.FileInfo;
import smbdirect.example.fileserver.internal.share.OpenFile;

/**
 * One {@link Smb2Connection} over a {@link FakeConnection}, negotiated (3.0.2) with one logged-on
 * session, one tree and one open file, requests run on the calling thread. For the unit tests of
 * dispatch and of READ and WRITE.
 */
final class Harness implements AutoCloseable {

    final FakeConnection transport;
    final Smb2Connection connection;
    final Session session;
    final TreeConnect tree;
    final FileChannel file;
    final Open open;

    Harness(Path path, int maxReadWriteSize) throws IOException {
        transport = new FakeConnection(maxReadWriteSize);
        connection = new Smb2Connection(new ServerContext(null, null, new byte[16], Runnable::run, 4), transport, c -> { });
        connection.negotiated(new Smb2Connection.Negotiated(Smb2.DIALECT_302, 0, new byte[16], 1, new int[] {0x0302}));
        session = connection.newSession();
        session.loggedOn("user", false);
        tree = session.addTree(false, "SHARE");
        file = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
        open = connection.opens().add(session.id(), tree.id(), new TestOpenFile(file, true, true));
    }

    long[] fileId() {
        return new long[] {open.persistentId(), open.volatileId()};
    }

    ByteBuffer request(int command, int creditCharge, long messageId, int flags, byte[] body) {
        return RequestBytes.request(command, creditCharge, messageId, session.id(), tree.id(), flags, body);
    }

    /** Runs one message's requests as a worker does and returns the response message, or null when none was sent. */
    FakeConnection.Sent run(ByteBuffer message) throws Exception {
        ByteBuffer m = message.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        List<Smb2Request> requests = new ArrayList<>();
        int at = 0;
        while (true) {
            Smb2Header h = Smb2Header.decode(m, at);
            requests.add(new Smb2Request(m, at, h.nextCommand() == 0 ? m.limit() - at : h.nextCommand(), h));
            if (h.nextCommand() == 0) {
                break;
            }
            at += h.nextCommand();
        }
        Dispatcher.process(connection, requests);
        return transport.sent.poll(); // requests run on this thread: the response, if any, is there
    }

    /** Hands {@code message} to the connection as the transport does. */
    void deliver(ByteBuffer message) {
        transport.deliver(connection, message);
    }

    @Override
    public void close() throws IOException {
        file.close();
    }

    /** Status of the i-th response header of a message. */
    static int status(ByteBuffer m, int at) {
        return m.getInt(at + 8);
    }

    /** An open of a plain file with the given access. */
    record TestOpenFile(FileChannel channel, boolean canRead, boolean canWrite) implements OpenFile {
        @Override
        public int createAction() {
            return 1;
        }

        @Override
        public int grantedAccess() {
            return 0x0012019F;
        }

        @Override
        public boolean isDirectory() {
            return false;
        }

        @Override
        public FileInfo info() {
            return new FileInfo(0, 0, 0, 0, 0, 0, 0x80);
        }

        @Override
        public String path() {
            return "file.bin";
        }
    }
}
