package smbdirect.interop.siw;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

import org.junit.jupiter.api.Test;

/** The test client's NTLM pieces against published vectors. */
class NtlmTest {

    private static final HexFormat HEX = HexFormat.of();

    @Test
    void md4MatchesRfc1320sTestSuite() {
        assertEquals("31d6cfe0d16ae931b73c59d7e0c089c0", HEX.formatHex(Ntlm.Md4.digest(new byte[0])));
        assertEquals("a448017aaf21d8525fc10ae87aa6729d", HEX.formatHex(Ntlm.Md4.digest("abc".getBytes(StandardCharsets.US_ASCII))));
        assertEquals("e33b4ddc9c38f2199c3e7b164fcc0536", HEX.formatHex(Ntlm.Md4.digest(
                "12345678901234567890123456789012345678901234567890123456789012345678901234567890"
                        .getBytes(StandardCharsets.US_ASCII))));
    }

    @Test
    void ntHashOfPasswordIsMd4OfItsUtf16le() {
        // [MS-NLMP] 3.3.1 NTOWFv1: the well-known NT hash of "password"
        assertEquals("8846f7eaee8fb117ad06bdd830b7586c",
                HEX.formatHex(Ntlm.Md4.digest("password".getBytes(StandardCharsets.UTF_16LE))));
    }
}
