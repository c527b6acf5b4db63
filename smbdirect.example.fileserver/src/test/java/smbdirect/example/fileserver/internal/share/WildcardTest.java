package smbdirect.example.fileserver.internal.share;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Search patterns, [MS-FSCC] 2.1.4.4 (the wildcards of FsRtlIsNameInExpression). */
class WildcardTest {

    @ParameterizedTest(name = "{0} ~ {1}: {2}")
    @CsvSource(delimiter = '|', value = {
        "*|anything|true",
        "*|''|true",
        "*.txt|a.txt|true",
        "*.txt|a.txt.bak|false",
        "*.txt|a.TXT|false",
        "a?c|abc|true",
        "a?c|ac|false",
        "a?c|abbc|false",
        "a*b*c|aXXbYYc|true",
        "a*b*c|aXXcYYb|false",
        "exact.name|exact.name|true",
        "exact.name|Exact.name|false",
        "<.txt|report.final.txt|true",
        "<.txt|report.txt|true",
        "<|a.b.c|false",
        "<.c|a.b.c|true",
        "a>|a|true",
        "a>|ab|true",
        "a>|abc|false",
        "a>>.txt|a.txt|true",
        "a>>.txt|abc.txt|true",
        "a\"txt|a.txt|true",
        "abc\"|abc|true",
        "abc\"|abc.|true",
        "abc\"|abcd|false",
        "<\"*|name|true",
    })
    void patternsMatchAsFsccSays(String pattern, String name, boolean matches) {
        assertEquals(matches, new Wildcard(pattern).matches(name));
    }

    @ParameterizedTest
    @CsvSource({"name,true", "*,false", "a?,false", "a<,false", "a>,false", "'a\"',false"})
    void aPatternWithoutWildcardsIsLiteral(String pattern, boolean literal) {
        assertEquals(literal, new Wildcard(pattern).literal());
    }
}
