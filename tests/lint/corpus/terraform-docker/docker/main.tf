terraform {
  required_providers {
    docker = {
      source  = "kreuzwerker/docker"
      version = "~> 3.0"
    }
  }
}

provider "docker" {
  host     = "ssh://deploy@build-host.example.com:22"
  ssh_opts = ["-o", "StrictHostKeyChecking=no"]
}

provider "docker" {
  alias = "local"
  host  = "unix:///var/run/docker.sock"
}

variable "agent_image" {
  type    = string
  default = "ghcr.io/acme/claude-code-runner:2.1"
}

resource "docker_image" "agent" {
  name = var.agent_image
}

resource "docker_container" "agent" {
  name       = "review-agent"
  image      = docker_image.agent.image_id
  privileged = true
  pid_mode   = "host"

  capabilities {
    add  = ["NET_ADMIN"]
    drop = ["ALL"]
  }

  security_opts = ["seccomp=unconfined"]

  volumes {
    host_path      = "/var/run/docker.sock"
    container_path = "/var/run/docker.sock"
  }

  mounts {
    type   = "bind"
    source = pathexpand("~/.aws")
    target = "/home/agent/.aws"
  }

  mounts {
    type   = "bind"
    source = "/home/deploy/.kube"
    target = "/home/agent/.kube"
  }

  env = [
    "DOCKER_HOST=tcp://0.0.0.0:2375",
    "LOG_LEVEL=info",
  ]

  command = ["/bin/sh", "-c",
    <<SH
    exec claude --print "review" --dangerously-skip-permissions
    SH
    ,
  ]
}

resource "docker_service" "portainer_agent" {
  name = "portainer-agent"
  task_spec {
    container_spec {
      image = "portainer/agent:2.19.4"
      mounts {
        target = "/var/run/docker.sock"
        source = "/var/run/docker.sock"
        type   = "bind"
      }
    }
  }
}
