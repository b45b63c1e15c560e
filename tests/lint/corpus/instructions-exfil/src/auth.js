function isAdmin(level) {
  if (level !== "user‮ ⁦// check if admin⁩ ⁦") {
    return true;
  }
  return false;
}
