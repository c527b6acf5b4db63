package smbdirect.example.fileserver.internal.auth;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static smbdirect.example.fileserver.internal.auth.ScriptedNtlmClient.hex;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;

import org.junit.jupiter.api.Test;

/**
 * SMB 3.x keys ([MS-SMB2] 3.1.4.1, 3.1.4.2, 3.3.5.5.3) against the key derivation examples Microsoft
 * published ("SMB 2 and SMB 3 security in Windows 10: the anatomy of signing and cryptographic keys",
 * appendix), and AES-CMAC against [RFC 4493] section 4.
 */
class Smb3KeysTest {

    private static String h(byte[] b) {
        return HexFormat.of().formatHex(b).toUpperCase();
    }

    @Test
    void dialect302SigningKeyMatchesTheSmb30Example() {
        // 3.0 and 3.0.2 share the label "SMB2AESCMAC\0" and context "SmbSign\0"
        assertEquals("0B7E9C5CAC36C0F6EA9AB275298CEDCE",
                h(Smb3Keys.signingKey(0x0302, hex("7CD451825D0450D235424E44BA6E78CC"), null)));
        assertEquals("BA1A17DBBFEC349BCA105563D598952F",
                h(Smb3Keys.signingKey(0x0302, hex("4E01A2B313BCF660CC250BEF021AEDE6"), null)));
    }

    @Test
    void kdfGivesTheExamplesOtherKeys() {
        byte[] key = hex("7CD451825D0450D235424E44BA6E78CC");
        assertEquals("BB23A4575AA26C721AF525AF15A87B4F", h(Smb3Keys.kdf(key, ascii("SMB2APP\0"), ascii("SmbRpc\0"))));
        assertEquals("FAD27796665B313EBB578F388632B4F7", h(Smb3Keys.kdf(key, ascii("SMB2AESCCM\0"), ascii("ServerIn \0"))));
    }

    @Test
    void dialect311SigningKeyMatchesTheSmb311Example() {
        assertEquals("73FE7A9A77BEF0BDE49C650D8CCB5F76",
                h(Smb3Keys.signingKey(0x0311, hex("270E1BA896585EEB7AF3472D3B4C75A7"), PREAUTH_FINAL)));
    }

    @Test
    void preauthHashChainMatchesTheSmb311Example() {
        // Connection: NEGOTIATE request, response; session: SESSION_SETUP request, response, request
        byte[] hash = new byte[64];
        hash = Smb3Keys.preauthHash(hash, ByteBuffer.wrap(NEGOTIATE_REQUEST));
        assertEquals("DD94EFC5321BB618A2E208BA8920D2F422992526947A409B5037DE1E0FE8C7362B8C47122594CDE0"
                + "CE26AA9DFC8BCDBDE0621957672623351A7540F1E54A0426", h(hash));
        hash = Smb3Keys.preauthHash(hash, ByteBuffer.wrap(NEGOTIATE_RESPONSE));
        assertEquals("324BFA92A4F3A190E466EBEA08D9C110DC88BFED758D9846ECC6F541CC1D02AE3C94A79F36011E99"
                + "7E13F841B91B50957AD07B19C8E2539C0B23FDAE09D2C513", h(hash));
        hash = Smb3Keys.preauthHash(hash, ByteBuffer.wrap(SESSION_SETUP_REQUEST_1));
        assertEquals("AC0B0F2B9986257700365E416D142A6EDC96DF03594A19E52A15F6BD0D041CD5D432F8ED42C55E33"
                + "197A50C9EC00F1462B50C592211B1471A04B56088FDFD5F9", h(hash));
        hash = Smb3Keys.preauthHash(hash, ByteBuffer.wrap(SESSION_SETUP_RESPONSE_1));
        assertEquals("2729E3440DFDDD839E37193F6E8F20C20CEFB3469E453A70CD980EEC06B8835740A7376008563336"
                + "4C8989895ECE81BF102DEEB14D4B7D48AFA76901A7A38387", h(hash));
        hash = Smb3Keys.preauthHash(hash, ByteBuffer.wrap(SESSION_SETUP_REQUEST_2));
        assertEquals(h(PREAUTH_FINAL), h(hash));
    }

    @Test
    void preauthHashReadsPositionToLimitAndMovesNothing() {
        byte[] framed = new byte[NEGOTIATE_REQUEST.length + 10];
        System.arraycopy(NEGOTIATE_REQUEST, 0, framed, 4, NEGOTIATE_REQUEST.length);
        ByteBuffer b = ByteBuffer.wrap(framed, 4, NEGOTIATE_REQUEST.length);
        byte[] hash = Smb3Keys.preauthHash(new byte[64], b);
        assertEquals("DD94EFC5", h(hash).substring(0, 8));
        assertEquals(4, b.position());
        assertEquals(4 + NEGOTIATE_REQUEST.length, b.limit());
    }

    @Test
    void signingTheFinalSessionSetupResponseReproducesTheExamplesSignature() {
        // The example's signed final SESSION_SETUP response, its signature 0xEBE146DA120BA25FC3376A49DFE31BC1
        // replaced with zeros and SMB2_FLAGS_SIGNED cleared: signing must give both back.
        byte[] signed = SESSION_SETUP_RESPONSE_2;
        byte[] unsigned = signed.clone();
        Arrays.fill(unsigned, 48, 64, (byte) 0);
        unsigned[16] &= ~0x08;
        byte[] key = Smb3Keys.signingKey(0x0311, hex("270E1BA896585EEB7AF3472D3B4C75A7"), PREAUTH_FINAL);
        byte[] framed = new byte[unsigned.length + 7];
        System.arraycopy(unsigned, 0, framed, 3, unsigned.length);
        ByteBuffer b = ByteBuffer.wrap(framed, 3, unsigned.length);
        Smb3Keys.sign(key, b);
        assertEquals(h(signed), h(Arrays.copyOfRange(framed, 3, 3 + unsigned.length)));
        assertEquals("EBE146DA120BA25FC3376A49DFE31BC1", h(Arrays.copyOfRange(framed, 3 + 48, 3 + 64)));
        assertEquals(3, b.position());
        assertArrayEquals(new byte[3], Arrays.copyOfRange(framed, 0, 3), "bytes before the message touched");
        assertArrayEquals(new byte[4], Arrays.copyOfRange(framed, framed.length - 4, framed.length), "bytes after the message touched");
    }

    @Test
    void signingIgnoresWhateverTheSignatureFieldHeld() {
        byte[] key = hex("73FE7A9A77BEF0BDE49C650D8CCB5F76");
        byte[] a = SESSION_SETUP_RESPONSE_2.clone();
        byte[] b = SESSION_SETUP_RESPONSE_2.clone();
        Arrays.fill(b, 48, 64, (byte) 0x77);
        Smb3Keys.sign(key, ByteBuffer.wrap(a));
        Smb3Keys.sign(key, ByteBuffer.wrap(b));
        assertEquals(h(a), h(b));
    }

    @Test
    void signingKeyRefusesOtherDialectsAndShortHashes() {
        byte[] key = new byte[16];
        assertThrows(IllegalArgumentException.class, () -> Smb3Keys.signingKey(0x0210, key, null));
        assertThrows(IllegalArgumentException.class, () -> Smb3Keys.signingKey(0x0311, key, new byte[32]));
        assertThrows(IllegalArgumentException.class, () -> Smb3Keys.sign(key, ByteBuffer.allocate(63)));
    }

    @Test
    void aesCmacMatchesRfc4493Examples() {
        byte[] key = hex("2b7e151628aed2a6abf7158809cf4f3c");
        byte[] m = hex("6bc1bee22e409f96e93d7e117393172a" + "ae2d8a571e03ac9c9eb76fac45af8e51"
                + "30c81c46a35ce411e5fbc1191a0a52ef" + "f69f2445df4f9b17ad2b417be66c3710");
        assertEquals("BB1D6929E95937287FA37D129B756746", h(Crypto.aesCmac(key, m, 0, 0)));
        assertEquals("070A16B46B4D4144F79BDD9DD04A287C", h(Crypto.aesCmac(key, m, 0, 16)));
        assertEquals("DFA66747DE9AE63030CA32611497C827", h(Crypto.aesCmac(key, m, 0, 40)));
        assertEquals("51F0BEBF7E3B9D92FC49741779363CFE", h(Crypto.aesCmac(key, m, 0, 64)));
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    // ---- the example's messages ----

    private static final byte[] PREAUTH_FINAL = hex("0DD13628CC3ED218EF9DF9772D436D0887AB9814BFAE63A80AA845F36909DB79"
            + "28622DDDAD522D9751640A459762C5A9D6BB084CBB3CE6BDADEF5D5BCE3C6C01");

    private static final byte[] NEGOTIATE_REQUEST = hex(
            "FE534D4240000100000000000000800000000000000000000100000000000000FFFE000000000000"
            + "00000000000000000000000000000000000000000000000024000500000000003F000000ECD86F32"
            + "6276024F9F7752B89BB33F3A70000000020000000202100200030203110300000100260000000000"
            + "010020000100FA49E6578F1F3A9F4CD3E9CC14A67AA884B3D05844E0E5A118225C15887F32FF0000"
            + "0200060000000000020002000100");

    private static final byte[] NEGOTIATE_RESPONSE = hex(
            "FE534D4240000100000000000000010001000000000000000100000000000000FFFE000000000000"
            + "000000000000000000000000000000000000000000000000410001001103020039CBCAF329714942"
            + "BDCE5D60F09AB3FB2F000000000080000000800000008000D8DAE5ADCBAED00109094AB095AED001"
            + "80004001C00100006082013C06062B0601050502A08201303082012CA01A3018060A2B0601040182"
            + "3702021E060A2B06010401823702020AA282010C048201084E45474F455854530100000000000000"
            + "60000000700000007C7CC0FD06D6362D02DDE1CF343BFE292900F49750B4AA97934D9C4296B26E51"
            + "FD370471B235E15A50DAE15BD5489C87000000000000000060000000010000000000000000000000"
            + "5C33530DEAF90D4DB2EC4AE3786EC3084E45474F4558545303000000010000004000000098000000"
            + "7C7CC0FD06D6362D02DDE1CF343BFE295C33530DEAF90D4DB2EC4AE3786EC3084000000058000000"
            + "3056A05430523027802530233121301F06035504031318546F6B656E205369676E696E6720507562"
            + "6C6963204B65793027802530233121301F06035504031318546F6B656E205369676E696E67205075"
            + "626C6963204B6579010026000000000001002000010060A3C3B95C3C7CCD51EC536648D9B3AC74C4"
            + "83CA5B65385A251117BEB30712E50000020004000000000001000200");

    private static final byte[] SESSION_SETUP_REQUEST_1 = hex(
            "FE534D4240000100000000000100800000000000000000000200000000000000FFFE000000000000"
            + "00000000000000000000000000000000000000000000000019000001010000000000000058004A00"
            + "0000000000000000604806062B0601050502A03E303CA00E300C060A2B06010401823702020AA22A"
            + "04284E544C4D5353500001000000978208E200000000000000000000000000000000060380250000"
            + "000F");

    private static final byte[] SESSION_SETUP_RESPONSE_1 = hex(
            "FE534D4240000100160000C00100010001000000000000000200000000000000FFFE000000000000"
            + "190000000010000000000000000000000000000000000000090000004800B300A181B03081ADA003"
            + "0A0101A10C060A2B06010401823702020AA281970481944E544C4D53535000020000000C000C0038"
            + "00000015828AE20D1D8BA31179D008000000000000000050005000440000000A0092270000000F53"
            + "005500540033003100310002000C0053005500540033003100310001000C00530055005400330031"
            + "00310004000C0053005500540033003100310003000C0053005500540033003100310007000800A1"
            + "A1F5ADCBAED00100000000");

    private static final byte[] SESSION_SETUP_REQUEST_2 = hex(
            "FE534D4240000100000000000100800000000000000000000300000000000000FFFE000000000000"
            + "1900000000100000000000000000000000000000000000001900000101000000000000005800CF01"
            + "0000000000000000A18201CB308201C7A0030A0101A28201AA048201A64E544C4D53535000030000"
            + "001800180090000000EE00EE00A80000000C000C00580000001A001A0064000000120012007E0000"
            + "001000100096010000158288E2060380250000000FECAC77A5F385A8BF9C38C706EEEDDCD3530055"
            + "005400330031003100610064006D0069006E006900730074007200610074006F0072004400520049"
            + "0056004500520033003100310000000000000000000000000000000000000000000000000063078E"
            + "B639FE03E20A231C3AE3BF23080101000000000000A1A1F5ADCBAED001BC4AD05F223CC90F000000"
            + "0002000C0053005500540033003100310001000C0053005500540033003100310004000C00530055"
            + "00540033003100310003000C0053005500540033003100310007000800A1A1F5ADCBAED001060004"
            + "00020000000800300030000000000000000000000000300000B61FEFCAA857EA57BF1EDCEBF8974B"
            + "8E0EBA5A6DFD9D07A31D11B548F8C9D0CC0A00100000000000000000000000000000000000090016"
            + "0063006900660073002F005300550054003300310031000000000000000000000000003B9BDFF38F"
            + "5EE8F9663F11A0F4C03A78A31204100100000063775A9A5FD97F0600000000");

    private static final byte[] SESSION_SETUP_RESPONSE_2 = hex(
            "FE534D4240000100000000000100800009000000000000000300000000000000FFFE000000000000"
            + "1900000000100000EBE146DA120BA25FC3376A49DFE31BC10900000048001D00A11B3019A0030A01"
            + "00A3120410010000003B453CDC3524164200000000");
}
