package smbdirect.example.fileserver.internal.auth;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The SPNEGO tokens ([RFC 4178] 4.2, [MS-SPNG]) around NTLMSSP: the server's NegTokenInit of the
 * NEGOTIATE response, the client's NegTokenInit (in its GSS-API InitialContextToken, [RFC 2743]
 * 3.1) and NegTokenResp, and the server's NegTokenResp. Only NTLMSSP is offered; other mechanisms
 * in a client's list are passed over.
 */
final class Spnego {

    /** 1.3.6.1.5.5.2, the SPNEGO mechanism, as OID contents. */
    static final byte[] SPNEGO_OID = {0x2B, 0x06, 0x01, 0x05, 0x05, 0x02};
    /** 1.3.6.1.4.1.311.2.2.10, NTLMSSP, as OID contents. */
    static final byte[] NTLMSSP_OID = {0x2B, 0x06, 0x01, 0x04, 0x01, (byte) 0x82, 0x37, 0x02, 0x02, 0x0A};

    /** negState ([RFC 4178] 4.2.2). */
    static final int ACCEPT_COMPLETED = 0;
    static final int ACCEPT_INCOMPLETE = 1;
    static final int REJECT = 2;

    /** First byte of a GSS-API InitialContextToken ([APPLICATION 0]): the client's NegTokenInit. */
    static final int INIT_TAG = Der.APPLICATION_0;
    /** First byte of a NegTokenResp ([1] of NegotiationToken). */
    static final int RESP_TAG = Der.context(1);

    private Spnego() {
    }

    /**
     * What a client's token carried.
     *
     * @param init whether it was a NegTokenInit (else a NegTokenResp)
     * @param mechTypes the OIDs offered (contents), empty for a NegTokenResp
     * @param mechToken the mechanism token (mechToken or responseToken), or {@code null} when absent
     * @param mechTypesEncoding the DER encoding of the MechTypeList as sent (what a mechListMIC covers),
     *     or {@code null} for a NegTokenResp
     * @param mechListMic a NegTokenResp's mechListMIC, or {@code null} when absent
     */
    record ClientToken(boolean init, List<byte[]> mechTypes, byte[] mechToken, byte[] mechTypesEncoding, byte[] mechListMic) {

        boolean offersNtlmssp() {
            return mechTypes.stream().anyMatch(m -> Arrays.equals(m, NTLMSSP_OID));
        }

        boolean ntlmsspFirst() {
            return !mechTypes.isEmpty() && Arrays.equals(mechTypes.get(0), NTLMSSP_OID);
        }
    }

    /**
     * The server's NegTokenInit: InitialContextToken { SPNEGO, [0] NegTokenInit { [0] mechTypes
     * = { NTLMSSP } } }. Linux cifs (decode_negTokenInit) sees the NTLMSSP OID and picks RawNTLMSSP.
     */
    static byte[] serverNegTokenInit() {
        byte[] mechTypes = Der.tlv(Der.context(0), Der.tlv(Der.SEQUENCE, Der.tlv(Der.OID, NTLMSSP_OID)));
        byte[] negTokenInit = Der.tlv(Der.context(0), Der.tlv(Der.SEQUENCE, mechTypes));
        return Der.tlv(INIT_TAG, Der.tlv(Der.OID, SPNEGO_OID), negTokenInit);
    }

    /**
     * The server's NegTokenResp: [1] { SEQUENCE { [0] negState, [1] supportedMech (when
     * {@code withMech}), [2] responseToken (when not {@code null}) } }.
     */
    static byte[] serverNegTokenResp(int negState, boolean withMech, byte[] responseToken) {
        return serverNegTokenResp(negState, withMech, responseToken, null);
    }

    /** As {@link #serverNegTokenResp(int, boolean, byte[])}, with [3] mechListMIC when not {@code null}. */
    static byte[] serverNegTokenResp(int negState, boolean withMech, byte[] responseToken, byte[] mechListMic) {
        List<byte[]> fields = new ArrayList<>(3);
        fields.add(Der.tlv(Der.context(0), Der.tlv(Der.ENUMERATED, new byte[] {(byte) negState})));
        if (withMech) {
            fields.add(Der.tlv(Der.context(1), Der.tlv(Der.OID, NTLMSSP_OID)));
        }
        if (responseToken != null) {
            fields.add(Der.tlv(Der.context(2), Der.tlv(Der.OCTET_STRING, responseToken)));
        }
        if (mechListMic != null) {
            fields.add(Der.tlv(Der.context(3), Der.tlv(Der.OCTET_STRING, mechListMic)));
        }
        return Der.tlv(RESP_TAG, Der.tlv(Der.SEQUENCE, fields.toArray(byte[][]::new)));
    }

    /** Parses a client's NegTokenInit (in its InitialContextToken) or NegTokenResp; the token must fill {@code blob}. */
    static ClientToken parseClient(byte[] blob) throws BadTokenException {
        Der.Reader top = Der.Reader.of(blob);
        Der.Element outer = top.next("SPNEGO token");
        top.expectEnd("SPNEGO token");
        if (outer.tag() == INIT_TAG) {
            Der.Reader r = outer.open();
            byte[] mech = r.next("InitialContextToken thisMech").expect(Der.OID, "InitialContextToken thisMech").contents();
            if (!Arrays.equals(mech, SPNEGO_OID)) {
                throw new BadTokenException("InitialContextToken: mechanism " + oidString(mech) + ", not SPNEGO 1.3.6.1.5.5.2");
            }
            Der.Element choice = r.next("NegotiationToken").expect(Der.context(0), "NegotiationToken (negTokenInit [0])");
            r.expectEnd("InitialContextToken");
            return parseInit(choice.only("NegTokenInit").expect(Der.SEQUENCE, "NegTokenInit"));
        }
        if (outer.tag() == RESP_TAG) {
            return parseResp(outer.only("NegTokenResp").expect(Der.SEQUENCE, "NegTokenResp"));
        }
        throw new BadTokenException(String.format("SPNEGO token: tag 0x%02X, neither InitialContextToken (0x60) nor NegTokenResp (0xA1)", outer.tag()));
    }

    private static ClientToken parseInit(Der.Element sequence) throws BadTokenException {
        List<byte[]> mechTypes = new ArrayList<>();
        byte[] mechToken = null;
        byte[] encoding = null;
        Der.Reader fields = sequence.open();
        while (fields.hasNext()) {
            Der.Element field = fields.next("NegTokenInit field");
            switch (field.tag()) {
                case 0xA0 -> {
                    Der.Element list = field.only("mechTypes").expect(Der.SEQUENCE, "mechTypes");
                    encoding = field.contents();
                    Der.Reader oids = list.open();
                    while (oids.hasNext()) {
                        mechTypes.add(oids.next("mechType").expect(Der.OID, "mechType").contents());
                    }
                }
                case 0xA2 -> mechToken = field.only("mechToken").expect(Der.OCTET_STRING, "mechToken").contents();
                default -> {
                    // reqFlags [1], negHints [3], mechListMIC [3]/[4] and extensions: not needed here
                }
            }
        }
        if (encoding == null) {
            throw new BadTokenException("NegTokenInit: no mechTypes");
        }
        return new ClientToken(true, mechTypes, mechToken, encoding, null);
    }

    private static ClientToken parseResp(Der.Element sequence) throws BadTokenException {
        byte[] responseToken = null;
        byte[] mic = null;
        Der.Reader fields = sequence.open();
        while (fields.hasNext()) {
            Der.Element field = fields.next("NegTokenResp field");
            switch (field.tag()) {
                case 0xA0 -> {
                    Der.Element state = field.only("negState").expect(Der.ENUMERATED, "negState");
                    if (state.length() != 1) {
                        throw new BadTokenException("negState: " + state.length() + " bytes, expected 1");
                    }
                }
                case 0xA1 -> {
                    byte[] mech = field.only("supportedMech").expect(Der.OID, "supportedMech").contents();
                    if (!Arrays.equals(mech, NTLMSSP_OID)) {
                        throw new BadTokenException("NegTokenResp: supportedMech " + oidString(mech) + ", only NTLMSSP is offered");
                    }
                }
                case 0xA2 -> responseToken = field.only("responseToken").expect(Der.OCTET_STRING, "responseToken").contents();
                case 0xA3 -> mic = field.only("mechListMIC").expect(Der.OCTET_STRING, "mechListMIC").contents();
                default -> {
                    // extensions: not needed here
                }
            }
        }
        return new ClientToken(false, List.of(), responseToken, null, mic);
    }

    /** Dotted form of OID contents, for reasons in the log. */
    static String oidString(byte[] oid) {
        if (oid.length == 0) {
            return "(empty OID)";
        }
        StringBuilder s = new StringBuilder();
        int first = oid[0] & 0xFF;
        s.append(Math.min(first / 40, 2)).append('.').append(first - 40 * Math.min(first / 40, 2));
        long value = 0;
        for (int i = 1; i < oid.length; i++) {
            value = (value << 7) | (oid[i] & 0x7F);
            if ((oid[i] & 0x80) == 0) {
                s.append('.').append(value);
                value = 0;
            } else if (value > (Long.MAX_VALUE >> 7)) {
                return s.append("...").toString();
            }
        }
        return s.toString();
    }
}
