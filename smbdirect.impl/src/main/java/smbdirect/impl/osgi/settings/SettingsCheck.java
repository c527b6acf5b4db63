package smbdirect.impl.osgi.settings;

import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import org.osgi.service.metatype.AttributeDefinition;

/**
 * Checks a configuration's raw properties against the attribute definitions of its metatype, the
 * way an operator's typo would slip through otherwise: a key no attribute has is reported with the
 * nearest attribute's name; a number or a boolean is parsed strictly ({@code ture} is no boolean,
 * {@code 44x5} no number, {@code 1.5} no whole number); a value outside the attribute's range or
 * options is refused with the reason the metatype gives. Stateless.
 */
public final class SettingsCheck {

    /**
     * One thing wrong with a configuration.
     *
     * @param key the property
     * @param value the value as written
     * @param reason why it is wrong
     * @param refused whether the value is refused (false: an unknown key, reported only)
     */
    public record Problem(String key, String value, String reason, boolean refused) {
        /** {@code key = value refused (reason)}, or {@code key = value ignored (reason)}. */
        public String text() {
            return key + " = " + value + (refused ? " refused (" : " ignored (") + reason + ")";
        }
    }

    /** Properties every configuration may carry that are no attribute of a component. */
    private static final Set<String> FRAMEWORK_KEYS = Set.of("service.pid", "service.factoryPid",
            "service.bundleLocation", "felix.fileinstall.filename", "component.name", "component.id",
            "webconsole.configurationFactory.nameHint", ":org.apache.felix.configadmin.revision:");

    private SettingsCheck() {
    }

    /**
     * Checks {@code properties} against {@code attributes} (attribute id to definition).
     *
     * @return the problems, refusals first; empty when the configuration is good
     */
    public static List<Problem> check(Map<String, AttributeDefinition> attributes, Map<String, ?> properties) {
        List<Problem> refused = new ArrayList<>();
        List<Problem> unknown = new ArrayList<>();
        for (Map.Entry<String, ?> e : properties.entrySet()) {
            String key = e.getKey();
            AttributeDefinition ad = attributes.get(key);
            if (ad == null) {
                if (!ignored(key)) {
                    String near = nearest(key, attributes.keySet());
                    unknown.add(new Problem(key, text(e.getValue()), "no such setting"
                            + (near == null ? "" : "; did you mean " + near + "?"), false));
                }
                continue;
            }
            String reason = checkValue(ad, e.getValue());
            if (reason != null) {
                refused.add(new Problem(key, text(e.getValue()), reason, true));
            }
        }
        refused.addAll(unknown);
        return refused;
    }

    /** Framework properties, private ones (a leading dot) and reference targets of Declarative Services. */
    private static boolean ignored(String key) {
        return FRAMEWORK_KEYS.contains(key) || key.startsWith(".") || key.startsWith("felix.")
                || key.startsWith("service.") || key.endsWith(".target");
    }

    /** Why {@code raw} is no good value of {@code ad}, or null when it is. */
    static String checkValue(AttributeDefinition ad, Object raw) {
        List<Object> values = elements(raw);
        if (values.size() > 1 && ad.getCardinality() == 0) {
            return "one value expected, " + values.size() + " given";
        }
        for (Object v : values) {
            String s = String.valueOf(v).strip();
            String why = checkType(ad.getType(), v, s);
            if (why != null) {
                return why;
            }
            String validation = ad.validate(v instanceof String ? s : String.valueOf(v));
            if (validation != null && !validation.isEmpty()) {
                return validation;
            }
            String[] options = ad.getOptionValues();
            if (options != null && options.length > 0 && !List.of(options).contains(s)) {
                return "not one of " + String.join(", ", options);
            }
        }
        return null;
    }

    private static String checkType(int type, Object v, String s) {
        switch (type) {
            case AttributeDefinition.BOOLEAN:
                if (v instanceof Boolean || s.equalsIgnoreCase("true") || s.equalsIgnoreCase("false")) {
                    return null;
                }
                return "not true or false";
            case AttributeDefinition.INTEGER:
            case AttributeDefinition.LONG:
            case AttributeDefinition.SHORT:
            case AttributeDefinition.BYTE:
                if (v instanceof Double || v instanceof Float) {
                    return "not a whole number";
                }
                try {
                    long n = v instanceof Number num ? num.longValue() : Long.parseLong(s);
                    long min = switch (type) {
                        case AttributeDefinition.INTEGER -> Integer.MIN_VALUE;
                        case AttributeDefinition.SHORT -> Short.MIN_VALUE;
                        case AttributeDefinition.BYTE -> Byte.MIN_VALUE;
                        default -> Long.MIN_VALUE;
                    };
                    long max = switch (type) {
                        case AttributeDefinition.INTEGER -> Integer.MAX_VALUE;
                        case AttributeDefinition.SHORT -> Short.MAX_VALUE;
                        case AttributeDefinition.BYTE -> Byte.MAX_VALUE;
                        default -> Long.MAX_VALUE;
                    };
                    return n < min || n > max ? "out of the range of its type" : null;
                } catch (NumberFormatException e) {
                    return "not a whole number";
                }
            case AttributeDefinition.DOUBLE:
            case AttributeDefinition.FLOAT:
                if (v instanceof Number) {
                    return null;
                }
                try {
                    double d = Double.parseDouble(s);
                    return Double.isNaN(d) || Double.isInfinite(d) ? "not a number" : null;
                } catch (NumberFormatException e) {
                    return "not a number";
                }
            case AttributeDefinition.CHARACTER:
                return s.length() == 1 ? null : "not one character";
            default:
                return null;
        }
    }

    private static List<Object> elements(Object raw) {
        if (raw == null) {
            return List.of();
        }
        if (raw.getClass().isArray()) {
            List<Object> l = new ArrayList<>();
            for (int i = 0; i < Array.getLength(raw); i++) {
                l.add(Array.get(raw, i));
            }
            return l;
        }
        if (raw instanceof Collection<?> c) {
            return new ArrayList<>(c);
        }
        return Collections.singletonList(raw);
    }

    /** The value as an operator wrote it (arrays comma-separated). */
    static String text(Object raw) {
        if (raw != null && (raw.getClass().isArray() || raw instanceof Collection<?>)) {
            List<String> parts = new ArrayList<>();
            for (Object o : elements(raw)) {
                parts.add(String.valueOf(o));
            }
            return String.join(", ", parts);
        }
        return String.valueOf(raw);
    }

    /**
     * The name in {@code known} nearest to {@code name} (edit distance, case ignored), or null when
     * none is near: at most a third of the name's letters differ.
     */
    public static String nearest(String name, Collection<String> known) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String k : known) {
            int d = distance(name.toLowerCase(Locale.ROOT), k.toLowerCase(Locale.ROOT));
            if (d < bestDistance || d == bestDistance && best != null && k.compareTo(best) < 0) {
                best = k;
                bestDistance = d;
            }
        }
        return best != null && bestDistance <= Math.max(2, name.length() / 3) ? best : null;
    }

    /** Levenshtein distance, a transposition of neighbours counting one (optimal string alignment). */
    static int distance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }
}
