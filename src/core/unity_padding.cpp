// Intentionally empty: meson.build adds this source to the library only when the library's
// sources are an exact multiple of unity_size, a count at which Meson 1.0 (Debian 12) asks
// the archive for a unity object it never builds. One more source moves the count off it.
