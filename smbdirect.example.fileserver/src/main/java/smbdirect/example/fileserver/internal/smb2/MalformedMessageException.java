package smbdirect.example.fileserver.internal.smb2;

/**
 * A message the protocol says ends the connection ([MS-SMB2] 3.3.5.2: a bad header, a MessageId
 * outside the command sequence window, a second NEGOTIATE). The message names the field and value.
 */
public final class MalformedMessageException extends Exception {

    private static final long serialVersionUID = 1L;

    public MalformedMessageException(String why) {
        super(why, null, false, false);
    }
}
