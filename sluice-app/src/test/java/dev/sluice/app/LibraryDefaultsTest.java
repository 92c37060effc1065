package dev.sluice.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LibraryDefaultsTest {

    /** Each setting's value when the user set none, and a value the user chose, which stays. */
    @ParameterizedTest(name = "{0}")
    @CsvSource({
        "io.netty.leakDetection.level, disabled, paranoid",
        "io.netty.jfr.enabled, false, true",
        "io.netty.allocator.lowMemory, false, true",
        "io.netty.allocator.chunkReuseQueueCapacity, 16, 2",
        "org.eclipse.jetty.util.referencesPerCacheLine, 16, 4",
    })
    void eachSettingHasItsDefaultUnlessTheUserChoseAValue(String name, String byDefault, String chosenValue) {
        Properties unset = new Properties();
        LibraryDefaults.apply(unset, 96L << 20);
        assertThat(unset.getProperty(name)).as("%s, unset", name).isEqualTo(byDefault);

        Properties chosen = new Properties();
        chosen.setProperty(name, chosenValue);
        LibraryDefaults.apply(chosen, 96L << 20);
        assertThat(chosen.getProperty(name)).as("%s, chosen", name).isEqualTo(chosenValue);
    }

    @Test
    void withoutAHeapGivenItMeasuresThisJvmsOwn() {
        Properties unset = new Properties();
        LibraryDefaults.apply(unset);
        assertThat(unset.getProperty("org.eclipse.jetty.util.referencesPerCacheLine"))
                .isEqualTo(Runtime.getRuntime().maxMemory() < 32L << 30 ? "16" : "8");
    }

    @Test
    void jettyIsToldEightReferencesPerCacheLineWithoutCompressedOops() {
        Properties huge = new Properties();
        LibraryDefaults.apply(huge, 64L << 30);
        assertThat(huge.getProperty("org.eclipse.jetty.util.referencesPerCacheLine"))
                .isEqualTo("8");
    }
}
