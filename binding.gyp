{
  # teamux's own native part: native/pty-spawn.c (see its header). Built by `npm install`
  # (scripts/build-native.mjs runs node-gyp); teamux runs without it, with node-pty's forkpty.
  'targets': [
    {
      'target_name': 'teamux_pty_spawn',
      'sources': ['native/pty-spawn.c'],
      'cflags': ['-O2', '-Wall', '-Wextra', '-Wno-unused-parameter'],
      'conditions': [['OS!="linux"', { 'type': 'none' }]],
    },
  ],
}
