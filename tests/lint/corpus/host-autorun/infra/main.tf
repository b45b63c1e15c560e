data "external" "git_sha" {
  program = ["bash", "${path.module}/scripts/sha.sh"]
}

data "aws_caller_identity" "current" {}
