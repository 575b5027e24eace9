let s = """abc"""
let t = """
 x
  """
#else
#if true
"\q\u{D800}"
