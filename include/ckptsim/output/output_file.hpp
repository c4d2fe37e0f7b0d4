#pragma once
// Writing result files (`run -o`, `schedule -o`, `iteration --trace` / `--write-profile`):
// the one way every command writes a file, so that no failure can leave a torn or damaged file.
//
// write_output_file(path, contents):
//   - a path that does not exist or names a regular file (directly or through symlinks) is
//     replaced atomically: the contents go to a new temporary file in the target's folder,
//     created exclusively (O_CREAT|O_EXCL, so a file or symlink already at that name is never
//     opened or followed) under a unique name ".NAME.tmp-PID-RANDOM", flushed to disk (fsync)
//     and renamed over the target; a symlink's target is replaced, the link kept. On every
//     failure the temporary file is removed and the old target is untouched.
//   - a path naming something that is not a regular file (/dev/null, /dev/full, a FIFO, a
//     terminal) is written in place: it is never replaced by a regular file. A regular file that
//     is the process's own standard output or error (`-o /dev/stdout > out.txt`) is written
//     through that stream's descriptor, so it lands where the rest of the output goes.
//   - a directory is refused.
// Every failure throws IoError naming the file and the reason (the errno text).
#include <string>
#include <string_view>
#include <vector>

namespace ckptsim {

void write_output_file(const std::string& path, std::string_view contents);

/// One file of a command's outputs and its contents.
struct OutputText {
  std::string path;
  std::string_view contents;
};

/// The outputs of one command, all or none: every file that is replaced atomically is first
/// written in full to its temporary file and flushed; then the targets written in place (a
/// device, a FIFO, the process's stdout); the renames come only after every write succeeded. A
/// failure before them leaves no output behind and every old target untouched (what a device or
/// FIFO already received cannot be taken back; a rename failing after another succeeded, which
/// only the folder's removal or a full disk's metadata can cause, leaves the earlier ones).
void write_output_files(const std::vector<OutputText>& outputs);

/// Throws the IoError write_output_file(path, ...) would throw for want of a place to write: a
/// directory, a folder that does not exist or refuses a new file (it creates and removes a
/// temporary file there, the way the write begins). Commands call it before their work, so a
/// long run or study never ends in "cannot write". Something that is not a regular file
/// (/dev/full, a FIFO) is not probed: only its write can tell.
void check_output_writable(const std::string& path);

/// Throws InputError (file "<command line>", pointer `option`) when `output` is the same file
/// (device and inode) as one of `inputs`: writing it would destroy an input. Paths that do not
/// exist (yet) never match.
void refuse_output_over_inputs(const std::string& option, const std::string& output,
                               const std::vector<std::string>& inputs);

/// One output option of a command and the path given to it ("" when not given).
struct OutputOption {
  std::string option;  ///< "--trace"
  std::string path;
};

/// Throws InputError (file "<command line>", pointer: the later option) when two outputs of one
/// command name the same file: the one written last would silently replace the other. Paths
/// compare as the same file (device and inode) when both exist, else by their canonical form
/// (symbolic links of the existing part resolved, "." and ".." removed). "-" (stdout) never matches.
void refuse_outputs_sharing_a_file(const std::vector<OutputOption>& outputs);

}  // namespace ckptsim
