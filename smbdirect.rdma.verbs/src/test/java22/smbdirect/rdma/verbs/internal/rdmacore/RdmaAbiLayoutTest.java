package smbdirect.rdma.verbs.internal.rdmacore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.GroupLayout;
import java.lang.foreign.MemoryLayout;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import smbdirect.rdma.verbs.internal.VerbsConstants;

/**
 * Every struct layout and constant of the rdma-core backend against rdma-core's own headers: the C
 * probe (src/test/c/rdma_abi_probe.c, compiled here with gcc against libibverbs-dev and
 * librdmacm-dev) prints sizes, member offsets and constants as the C compiler sees them; each must
 * equal the Java side, and each side must cover the other. A wrong layout fails the build here
 * instead of corrupting memory on a device.
 */
class RdmaAbiLayoutTest {

    static final Map<String, Long> sizes = new HashMap<>();
    static final Map<String, Long> offsets = new HashMap<>();
    static final Map<String, Long> constants = new HashMap<>();

    @BeforeAll
    static void runTheProbe() throws Exception {
        List<String> lines = NativeBuild.run(NativeBuild.compile("rdma_abi_probe.c", "rdma_abi_probe"));
        for (String line : lines) {
            String[] f = line.split(" ");
            Map<String, Long> into = switch (f[0]) {
                case "size" -> sizes;
                case "offset" -> offsets;
                case "const" -> constants;
                default -> throw new IllegalStateException("probe line: " + line);
            };
            into.put(f[1], Long.parseLong(f[2]));
        }
        assertTrue(sizes.size() > 20 && offsets.size() > 200 && constants.size() > 50, "the probe printed " + lines.size());
    }

    /** Every named member of {@code layout} with its offset, by C path ({@code $}-named anonymous unions left out). */
    private static void members(GroupLayout layout, String prefix, long base, Map<String, Long> out) {
        long position = 0;
        for (MemoryLayout m : layout.memberLayouts()) {
            long offset = base + (layout instanceof java.lang.foreign.UnionLayout ? 0 : position);
            position += m.byteSize();
            if (m.name().isEmpty()) {
                continue;
            }
            String name = m.name().get();
            String path = name.startsWith("$") ? prefix : prefix + (prefix.isEmpty() ? "" : ".") + name;
            if (!name.startsWith("$")) {
                out.put(path, offset);
            }
            if (m instanceof GroupLayout g && !registered(g)) {
                members(g, path, offset, out);
            }
        }
    }

    /** A nested struct that is checked on its own (ibv_qp_cap in ibv_qp_init_attr, ...). */
    private static boolean registered(GroupLayout g) {
        for (GroupLayout s : Abi.STRUCTS.values()) {
            if (s.withoutName().equals(g.withoutName())) {
                return true;
            }
        }
        return false;
    }

    /** The offset of a C member path in {@code layout} ({@code $} unions passed through), or {@code null}. */
    static Long resolve(GroupLayout layout, String path) {
        String[] parts = path.split("\\.", 2);
        long position = 0;
        for (MemoryLayout m : layout.memberLayouts()) {
            long at = layout instanceof java.lang.foreign.UnionLayout ? 0 : position;
            position += m.byteSize();
            String name = m.name().orElse("");
            if (name.equals(parts[0])) {
                if (parts.length == 1) {
                    return at;
                }
                Long inner = m instanceof GroupLayout g ? resolve(g, parts[1]) : null;
                return inner == null ? null : at + inner;
            }
            if (name.startsWith("$") && m instanceof GroupLayout g) {
                Long inner = resolve(g, path);
                if (inner != null) {
                    return at + inner;
                }
            }
        }
        return null;
    }

    @Test
    void everyStructHasTheSizeOfItsCDefinition() {
        List<String> wrong = new ArrayList<>();
        for (Map.Entry<String, GroupLayout> e : Abi.STRUCTS.entrySet()) {
            Long c = sizes.get(e.getKey());
            if (c == null) {
                wrong.add(e.getKey() + ": the probe prints no size");
            } else if (c != e.getValue().byteSize()) {
                wrong.add("sizeof(struct " + e.getKey() + ") is " + c + ", the Java layout " + e.getValue().byteSize());
            }
        }
        Set<String> unchecked = new TreeSet<>(sizes.keySet());
        unchecked.removeAll(Abi.STRUCTS.keySet());
        if (!unchecked.isEmpty()) {
            wrong.add("the probe sizes structs without a Java layout: " + unchecked);
        }
        assertEquals(List.of(), wrong);
    }

    @Test
    void everyMemberIsWhereTheCCompilerPutsIt() {
        List<String> wrong = new ArrayList<>();
        Set<String> java = new TreeSet<>();
        for (Map.Entry<String, GroupLayout> e : Abi.STRUCTS.entrySet()) {
            Map<String, Long> m = new HashMap<>();
            members(e.getValue(), "", 0, m);
            for (Map.Entry<String, Long> member : m.entrySet()) {
                String key = e.getKey() + "." + member.getKey();
                java.add(key);
                Long c = offsets.get(key);
                if (c == null) {
                    wrong.add(key + ": the probe prints no offset (add OFF(" + e.getKey() + ", " + member.getKey()
                            + ") to rdma_abi_probe.c)");
                } else if (c.longValue() != member.getValue()) {
                    wrong.add("offsetof(" + key + ") is " + c + ", the Java layout " + member.getValue());
                }
            }
        }
        for (Map.Entry<String, Long> c : offsets.entrySet()) {
            if (java.contains(c.getKey())) {
                continue;
            }
            // a path into a nested struct (ibv_context.ops.post_send): resolved through the Java layouts
            String[] parts = c.getKey().split("\\.", 2);
            GroupLayout struct = Abi.STRUCTS.get(parts[0]);
            Long offset = struct == null ? null : resolve(struct, parts[1]);
            if (offset == null) {
                wrong.add("the probe prints the offset of " + c.getKey() + ", which the Java layouts lack");
            } else if (offset.longValue() != c.getValue()) {
                wrong.add("offsetof(" + c.getKey() + ") is " + c.getValue() + ", the Java layouts " + offset);
            }
        }
        assertEquals(List.of(), wrong);
    }

    @Test
    void everyConstantHasItsCValue() throws IllegalAccessException {
        List<String> wrong = new ArrayList<>();
        Set<String> java = new TreeSet<>();
        for (Field f : Abi.class.getDeclaredFields()) {
            if (!Modifier.isStatic(f.getModifiers()) || !constants.containsKey(f.getName())) {
                continue;
            }
            f.setAccessible(true);
            long value = ((Number) f.get(null)).longValue();
            java.add(f.getName());
            if (value != constants.get(f.getName())) {
                wrong.add(f.getName() + " is " + constants.get(f.getName()) + " in C, " + value + " in Abi");
            }
        }
        for (Field f : VerbsConstants.class.getDeclaredFields()) {
            String c = cName(f.getName());
            if (c == null) {
                continue;
            }
            long value = ((Number) f.get(null)).longValue();
            Long expected = constants.get(c);
            java.add(c);
            if (expected == null) {
                wrong.add("VerbsConstants." + f.getName() + ": the probe prints no " + c + " (add CONST(" + c + "))");
            } else if (value != expected) {
                wrong.add("VerbsConstants." + f.getName() + " is " + value + ", " + c + " is " + expected + " in C");
            }
        }
        Set<String> unchecked = new TreeSet<>(constants.keySet());
        unchecked.removeAll(java);
        if (!unchecked.isEmpty()) {
            wrong.add("the probe prints constants Java does not use: " + unchecked);
        }
        assertEquals(List.of(), wrong);
    }

    /** The rdma-core name of a VerbsConstants field; {@code null} for the ones rdma-core's headers do not define. */
    static String cName(String field) {
        if (field.startsWith("IB_CM_REJ_") || field.startsWith("MAX_") || field.equals("DISNI_JNI_VERSION")) {
            return null;
        }
        if (field.startsWith("CM_EVENT_")) {
            return "RDMA_" + field;
        }
        return "IBV_" + field;
    }

    @Test
    void theOffsetsTheBackendUsesAreTheLayoutsOwn() {
        // spot checks of the derived offsets against the probe (the layouts are checked above)
        assertEquals(offsets.get("ibv_context.ops.post_send"), Abi.CONTEXT_POST_SEND);
        assertEquals(offsets.get("ibv_context.ops.poll_cq"), Abi.CONTEXT_POLL_CQ);
        assertEquals(offsets.get("ibv_send_wr.invalidate_rkey"), Abi.SEND_WR_INVALIDATE_RKEY);
        assertEquals(offsets.get("ibv_send_wr.wr.rdma.rkey"), Abi.SEND_WR_RKEY);
        assertEquals(offsets.get("ibv_wc.invalidated_rkey"), Abi.WC_INVALIDATED_RKEY);
        assertEquals(offsets.get("rdma_cm_id.route.addr.dst_storage"), Abi.CM_ID_DST_ADDR);
        assertEquals(offsets.get("rdma_cm_event.param.conn.initiator_depth"), Abi.EVENT_INITIATOR_DEPTH);
        assertEquals(offsets.get("verbs_context.context"), Abi.VERBS_CONTEXT_CONTEXT);
        assertEquals(sizes.get("ibv_wc"), Abi.WC_SIZE);
    }
}
