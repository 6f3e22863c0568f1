class ProfilesController < ApplicationController
  def update
    current_user.update(profile_attributes)
  end

  private

  def profile_attributes
    params.require(:profile).permit(:name, :bio)
  end
end
