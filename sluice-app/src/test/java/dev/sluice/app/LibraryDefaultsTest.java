package dev.sluice.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Properties;
import org.junit.jupiter.api.Test;

class LibraryDefaultsTest {

    @Test
    void leakDetectionIsOffUnlessTheUserChoseALevel() {
        Properties unset = new Properties();
        LibraryDefaults.apply(unset);
        assertThat(unset.getProperty("io.netty.leakDetection.level")).isEqualTo("disabled");

        Properties chosen = new Properties();
        chosen.setProperty("io.netty.leakDetection.level", "paranoid");
        LibraryDefaults.apply(chosen);
        assertThat(chosen.getProperty("io.netty.leakDetection.level")).isEqualTo("paranoid");
    }

    @Test
    void nettysFlightRecorderEventsAreOffUnlessTheUserTurnedThemOn() {
        Properties unset = new Properties();
        LibraryDefaults.apply(unset);
        assertThat(unset.getProperty("io.netty.jfr.enabled")).isEqualTo("false");

        Properties chosen = new Properties();
        chosen.setProperty("io.netty.jfr.enabled", "true");
        LibraryDefaults.apply(chosen);
        assertThat(chosen.getProperty("io.netty.jfr.enabled")).isEqualTo("true");
    }

    @Test
    void nettysAllocatorLeavesItsLowMemoryModeUnlessTheUserChoseIt() {
        Properties unset = new Properties();
        LibraryDefaults.apply(unset, 96L << 20);
        assertThat(unset.getProperty("io.netty.allocator.lowMemory")).isEqualTo("false");

        Properties chosen = new Properties();
        chosen.setProperty("io.netty.allocator.lowMemory", "true");
        LibraryDefaults.apply(chosen, 96L << 20);
        assertThat(chosen.getProperty("io.netty.allocator.lowMemory")).isEqualTo("true");
    }

    @Test
    void nettysAllocatorKeepsSixteenReleasedChunksForReuseUnlessTheUserChoseANumber() {
        Properties unset = new Properties();
        LibraryDefaults.apply(unset, 96L << 20);
        assertThat(unset.getProperty("io.netty.allocator.chunkReuseQueueCapacity"))
                .isEqualTo("16");

        Properties chosen = new Properties();
        chosen.setProperty("io.netty.allocator.chunkReuseQueueCapacity", "2");
        LibraryDefaults.apply(chosen, 96L << 20);
        assertThat(chosen.getProperty("io.netty.allocator.chunkReuseQueueCapacity"))
                .isEqualTo("2");
    }

    @Test
    void jettyIsToldTheReferencesPerCacheLineSoItStartsNoMBeanServer() {
        Properties small = new Properties();
        LibraryDefaults.apply(small, 96L << 20);
        assertThat(small.getProperty("org.eclipse.jetty.util.referencesPerCacheLine"))
                .isEqualTo("16");

        Properties huge = new Properties();
        LibraryDefaults.apply(huge, 64L << 30);
        assertThat(huge.getProperty("org.eclipse.jetty.util.referencesPerCacheLine"))
                .isEqualTo("8");

        Properties chosen = new Properties();
        chosen.setProperty("org.eclipse.jetty.util.referencesPerCacheLine", "4");
        LibraryDefaults.apply(chosen, 96L << 20);
        assertThat(chosen.getProperty("org.eclipse.jetty.util.referencesPerCacheLine"))
                .isEqualTo("4");
    }
}
