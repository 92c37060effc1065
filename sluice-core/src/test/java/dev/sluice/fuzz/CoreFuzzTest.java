package dev.sluice.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.sluice.compose.JsonFuzzTargets;
import dev.sluice.config.ConfigFuzzTargets;
import dev.sluice.http.GrpcWebFuzzTargets;
import dev.sluice.http.HeadFuzzTargets;
import dev.sluice.routing.RoutingFuzzTargets;
import dev.sluice.transcode.TranscodeFuzzTargets;
import java.util.Arrays;

/**
 * The core's fuzz targets, behind one {@code @FuzzTest}: Jazzer fuzzes one fuzz test per JVM, so
 * the build fuzzes them all in one bounded run ({@code sluice.fuzz.duration}, docs/FUZZING.md) and
 * libFuzzer's coverage feedback spreads the time over whichever target still finds new paths.
 *
 * <p>The first byte of an input picks the target (a letter below, any other byte by its value
 * modulo the number of targets); the rest is the target's input, as each target describes. The
 * committed corpus, {@code CoreFuzzTestInputs/fuzz/}, holds readable seeds named after their
 * target; every one is replayed first, so a finding committed there is a regression test.
 *
 * <pre>
 *   p  RequestPath.normalise                          RoutingFuzzTargets.normalise
 *   r  normalise, PathPattern, PathTemplate, ProxyPath RoutingFuzzTargets.route
 *   j  JsonValidator against Jackson                  JsonFuzzTargets.validate
 *   s  JsonSplice                                     JsonFuzzTargets.splice
 *   x  JsonShaper against a tree filter               JsonFuzzTargets.shape
 *   c  ConfigLoader.parse                             ConfigFuzzTargets.parse
 *   h  ResponseHeadCheck                              HeadFuzzTargets.responseHead
 *   f  RequestFraming.check                           HeadFuzzTargets.requestFraming
 *   t  JSON -> gRPC request, templates, GrpcFrames     TranscodeFuzzTargets.transcode
 *   w  GrpcWebText.Decoder against java.util.Base64   GrpcWebFuzzTargets.textDecoder
 * </pre>
 */
class CoreFuzzTest {

    private static final String TARGETS = "prjsxchftw";

    @FuzzTest(maxDuration = "10s")
    void fuzz(byte[] input) throws Exception {
        if (input.length == 0) {
            return;
        }
        int target = TARGETS.indexOf(input[0]);
        if (target < 0) {
            target = (input[0] & 0xff) % TARGETS.length();
        }
        byte[] data = Arrays.copyOfRange(input, 1, input.length);
        switch (TARGETS.charAt(target)) {
            case 'p' -> RoutingFuzzTargets.normalise(data);
            case 'r' -> RoutingFuzzTargets.route(data);
            case 'j' -> JsonFuzzTargets.validate(data);
            case 's' -> JsonFuzzTargets.splice(data);
            case 'x' -> JsonFuzzTargets.shape(data);
            case 'c' -> ConfigFuzzTargets.parse(data);
            case 'h' -> HeadFuzzTargets.responseHead(data);
            case 'f' -> HeadFuzzTargets.requestFraming(data);
            case 't' -> TranscodeFuzzTargets.transcode(data);
            default -> GrpcWebFuzzTargets.textDecoder(data);
        }
    }
}
