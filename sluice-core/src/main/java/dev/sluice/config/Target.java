package dev.sluice.config;

/** Where a matched request goes: one upstream ({@link ProxyTarget}) or several ({@link ComposeTarget}). */
public sealed interface Target permits ProxyTarget, ComposeTarget {}
