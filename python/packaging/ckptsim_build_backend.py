"""PEP 517 build backend of ckptsim's Python package: meson-python with the project's options.

pyproject.toml names this module as its backend. Each hook calls meson-python's hook of the same
name with the config settings pip passes, after putting the options of a package build in front
of the user's setup-args (Meson keeps the last value of an option, so a user's
`--config-settings setup-args=-Dunity_size=8` still wins):
  -Dpython_package=true     build only the static library and the module (meson.build), and
                            install only the module: that is what the wheel holds
  --unity=on -Dunity_size=16  as scripts/build: the header-only libraries parsed a sixteenth
                            as often
  -Doptimization=3 -Db_ndebug=false  as the release build of scripts/build (meson-python asks
                            for -O2; the assertions stay, as in every ckptsim build)
  -Dpython=enabled          the module is required, never skipped
  -Dtests, benchmarks, mpi, cuda, simgrid disabled, -Dfuzz=false: not part of the package (the
                            sweep then runs on threads, as it does outside mpirun)
Debian's meson-python 0.12 reads no Meson options from pyproject.toml (the
[tool.meson-python.args] table came in 0.13), and pip 23 keeps only the last of repeated
--config-settings, so the options cannot come from either. No prepare_metadata_for_build_wheel
hook: pip then takes the metadata from the wheel build_wheel makes, building only once.
"""

import mesonpy

PACKAGE_SETUP_ARGS = [
    "-Dpython_package=true",
    "--unity=on",
    "-Dunity_size=16",
    "-Doptimization=3",
    "-Db_ndebug=false",
    "-Dpython=enabled",
    "-Dtests=disabled",
    "-Dbenchmarks=disabled",
    "-Dmpi=disabled",
    "-Dcuda=disabled",
    "-Dsimgrid=disabled",
    "-Dfuzz=false",
]


def with_package_options(config_settings):
    """config_settings with PACKAGE_SETUP_ARGS in front of the user's setup-args."""
    settings = dict(config_settings or {})
    user = settings.get("setup-args", [])
    if isinstance(user, str):
        user = [user]
    settings["setup-args"] = PACKAGE_SETUP_ARGS + list(user)
    return settings


def get_requires_for_build_wheel(config_settings=None):
    return mesonpy.get_requires_for_build_wheel(with_package_options(config_settings))


def get_requires_for_build_sdist(config_settings=None):
    return mesonpy.get_requires_for_build_sdist(with_package_options(config_settings))


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return mesonpy.build_wheel(wheel_directory, with_package_options(config_settings), metadata_directory)


def build_sdist(sdist_directory, config_settings=None):
    return mesonpy.build_sdist(sdist_directory, with_package_options(config_settings))
